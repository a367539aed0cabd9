import ColorScience
import Foundation
import GainMap
import HEIF
import HeifCodec
import ReportModel
import TestSupport

@testable import Audit

/// Builds small, real HEIC files (HEVC coded by libheif) with a complete gain map in both forms, and the broken
/// variants the auditor must catch. Every file is generated here; nothing comes from outside the repository.
enum Constructed {
    struct Coded {
        let hvcC: Property
        let data: [UInt8]
        let width: UInt32
        let height: UInt32
    }

    /// One coded item taken out of a libheif-encoded file.
    static func code(_ pixels: HeifPixels, bitDepth: Int = 8, chroma: HeifChroma = .yuv420) throws -> Coded {
        var settings = HeifEncodeSettings()
        settings.bitDepth = bitDepth
        settings.chroma = chroma
        settings.preset = "ultrafast"
        let f = HEIFFile(bytes: try HeifEncoder.encode(pixels, settings: settings))
        guard let p = f.primaryItemID, let cfg = f.property("hvcC", of: p), let data = f.payload(of: p),
            let size = f.imageSize(of: p)
        else { throw Failure(what: "libheif's file has no coded primary") }
        return Coded(hvcC: cfg, data: data, width: size.width, height: size.height)
    }

    struct Failure: Error, CustomStringConvertible {
        let what: String
        var description: String { what }
    }

    /// What to put in (or leave out of) the file.
    struct Options {
        var appleGainMap = true
        var appleXMP = true
        var isoGainMap = true
        var tmapColr = true
        var primaryColr = true
        var tenBit = false
        var exif: [UInt8]? = nil
        /// The primary's pixi depth; nil: the coded depth.
        var pixi: UInt8? = nil
        var width = 64
        var height = 64
    }

    static let sdrNCLX = NCLX(colourPrimaries: 1, transferCharacteristics: 13, matrixCoefficients: 6, fullRange: true)
    static let pqNCLX = NCLX(colourPrimaries: 9, transferCharacteristics: 16, matrixCoefficients: 9, fullRange: true)

    /// A HEIC with a 64×64 primary, an Apple gain map (auxl + auxC + XMP) and an ISO tmap over the same map.
    static func heic(_ o: Options = Options()) throws -> [UInt8] {
        let w = o.width
        let h = o.height
        let primary: Coded
        if o.tenBit {
            primary = try code(
                .rgb16(width: w, height: h, bitDepth: 10, samples: (0..<(w * h * 3)).map { UInt16(($0 * 7) % 1024) }),
                bitDepth: 10)
        } else {
            primary = try code(.rgb8(width: w, height: h, samples: (0..<(w * h * 3)).map { UInt8(($0 * 7) % 256) }))
        }
        // At least 64 px a side: libheif pads a smaller picture to 64 with an ispe of the smaller size, which the
        // conformance check reports (conformance.ispe-mismatch).
        let (mw, mh) = (max(64, w / 2), max(64, h / 2))
        let map = try code(
            .mono8(width: mw, height: mh, samples: (0..<(mw * mh)).map { UInt8(($0 * 3) % 256) }), chroma: .monochrome)
        var brands: [FourCC] = ["mif1", "miaf", "heic"]
        if o.isoGainMap { brands.append("tmap") }
        var b = HEIFBuilder(brands: Brands(major: "heic", compatible: brands))
        var pprops: [(Property, essential: Bool)] = [
            (primary.hvcC, true), (.ispe(width: primary.width, height: primary.height), false),
        ]
        if o.primaryColr { pprops.append((.colrNCLX(sdrNCLX), false)) }
        // The coded depth unless a test asks for another (MIAF §7.3.6.6 wants a pixi on every displayable image).
        let bits = o.pixi ?? UInt8(o.tenBit ? 10 : 8)
        pprops.append((.pixi(bitsPerChannel: [bits, bits, bits]), false))
        let p = b.addCodedImage(properties: pprops, data: primary.data)
        b.setPrimary(p)
        if let exif = o.exif { b.addExif(tiff: exif, describing: [p]) }
        guard o.appleGainMap || o.isoGainMap else { return b.build() }
        let g = b.addCodedImage(
            properties: [
                (map.hvcC, true), (.ispe(width: map.width, height: map.height), false),
                (.pixi(bitsPerChannel: [8]), false),
                (
                    .colrNCLX(
                        NCLX(colourPrimaries: 2, transferCharacteristics: 2, matrixCoefficients: 6, fullRange: true)),
                    false
                ),
                (.auxC(urn: HEIFFile.appleGainMapURN, subtype: []), true),
            ], data: map.data, hidden: true)
        if o.appleGainMap {
            b.addReference(type: "auxl", from: g, to: [p])
            if o.appleXMP { b.addXMP(AppleGainMapXMP.packet(headroom: 4), describing: [g]) }
        }
        if o.isoGainMap {
            let body = try ToneMapImage(metadata: AppleGainMap.isoMetadata(fromHeadroom: 4)!).encoded()
            var tprops: [(Property, essential: Bool)] = [
                (.ispe(width: primary.width, height: primary.height), false),
                (.pixi(bitsPerChannel: o.tenBit ? [10, 10, 10] : [8, 8, 8]), false),
            ]
            if o.tmapColr { tprops.append((.colrNCLX(pqNCLX), false)) }
            let t = b.addDerivedImage(type: "tmap", payload: body, inputs: [p, g], properties: tprops)
            b.addEntityGroup(type: "altr", entities: [t, p])
        }
        return b.build()
    }

    /// The file with the gain-map image's `iloc` entry pointed at an item that does not exist: its pixels are gone.
    static func withoutGainMapLocation(_ bytes: [UInt8]) throws -> [UInt8] {
        let f = HEIFFile(bytes: bytes)
        guard let t = f.toneMapItems.first, let g = f.toneMapInputs(of: t)?.gainMap, let loc = f.locations[g],
            let at = loc.offset, let layout = f.ilocLayout
        else { throw Failure(what: "no gain map location to remove") }
        var out = bytes
        if layout.version < 2 {
            out[at] = 0x7F
            out[at + 1] = 0xFE
        } else {
            out[at..<(at + 4)] = [0x7F, 0xFE, 0x00, 0x01]
        }
        guard HEIFFile(bytes: out).locations[g] == nil else { throw Failure(what: "iloc patch did not take") }
        return out
    }

    /// Writes `bytes` to a file in `dir`.
    static func write(_ bytes: [UInt8], _ name: String, in dir: URL) throws -> URL {
        let u = dir.appendingPathComponent(name)
        try Data(bytes).write(to: u)
        return u
    }
}

/// A minimal big-endian TIFF/Exif writer for test fixtures (CIPA DC-008 §4.6): IFD0 with Make, Model,
/// Orientation and pointers to the Exif and GPS IFDs.
enum TinyTIFF {
    enum Value {
        case ascii(String)
        case short(UInt16)
        case rational([(UInt32, UInt32)])
        case byte([UInt8])
    }

    static func make(
        orientation: UInt16 = 1, dateTimeOriginal: String? = "2024:05:06 07:08:09",
        gps: (lat: Double, lon: Double)? = (48.8584, 2.2945)
    ) -> [UInt8] {
        let ifd0: [(UInt16, Value)] = [
            (0x010F, .ascii("Readback")), (0x0110, .ascii("TestCam 1")), (0x0112, .short(orientation)),
        ]
        var exif: [(UInt16, Value)] = []
        if let d = dateTimeOriginal { exif.append((0x9003, .ascii(d))) }
        var gpsIFD: [(UInt16, Value)] = []
        if let g = gps {
            func dms(_ v: Double) -> [(UInt32, UInt32)] {
                let a = abs(v)
                let d = floor(a)
                let m = floor((a - d) * 60)
                let s = ((a - d) * 60 - m) * 60
                return [(UInt32(d), 1), (UInt32(m), 1), (UInt32((s * 10000).rounded()), 10000)]
            }
            gpsIFD = [
                (0x0000, .byte([2, 3, 0, 0])), (0x0001, .ascii(g.lat >= 0 ? "N" : "S")),
                (0x0002, .rational(dms(g.lat))),
                (0x0003, .ascii(g.lon >= 0 ? "E" : "W")), (0x0004, .rational(dms(g.lon))),
            ]
        }
        // Layout: header (8) | IFD0 | Exif IFD | GPS IFD | data area.
        func ifdSize(_ n: Int) -> Int { 2 + 12 * n + 4 }
        let n0 = ifd0.count + (exif.isEmpty ? 0 : 1) + (gpsIFD.isEmpty ? 0 : 1)
        let off0 = 8
        let offE = off0 + ifdSize(n0)
        let offG = offE + (exif.isEmpty ? 0 : ifdSize(exif.count))
        var dataOff = offG + (gpsIFD.isEmpty ? 0 : ifdSize(gpsIFD.count))
        var out: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8]
        var data: [UInt8] = []
        func u16(_ v: UInt16, _ o: inout [UInt8]) { o += [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: UInt32, _ o: inout [UInt8]) {
            o += [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
        }
        func entry(_ tag: UInt16, _ v: Value, _ o: inout [UInt8]) {
            u16(tag, &o)
            var payload: [UInt8] = []
            let type: UInt16
            let count: UInt32
            switch v {
            case .ascii(let s):
                type = 2
                payload = Array(s.utf8) + [0]
                count = UInt32(payload.count)
            case .short(let x):
                type = 3
                u16(x, &payload)
                payload += [0, 0]
                count = 1
            case .byte(let b):
                type = 1
                payload = b
                count = UInt32(b.count)
            case .rational(let r):
                type = 5
                for (n, d) in r {
                    u32(n, &payload)
                    u32(d, &payload)
                }
                count = UInt32(r.count)
            }
            u16(type, &o)
            u32(count, &o)
            if payload.count <= 4 {
                o += payload + Array(repeating: 0, count: 4 - payload.count)
            } else {
                u32(UInt32(dataOff), &o)
                data += payload
                if payload.count % 2 == 1 { data.append(0) }
                dataOff += payload.count + payload.count % 2
            }
        }
        func ifd(_ entries: [(UInt16, Value)], pointers: [(UInt16, Int)]) {
            var all: [(UInt16, Value?)] = entries.map { ($0.0, $0.1) } + pointers.map { ($0.0, nil) }
            all.sort { $0.0 < $1.0 }
            u16(UInt16(all.count), &out)
            for (tag, v) in all {
                if let v {
                    entry(tag, v, &out)
                } else {
                    let p = pointers.first { $0.0 == tag }!.1
                    u16(tag, &out)
                    u16(4, &out)
                    u32(1, &out)
                    u32(UInt32(p), &out)
                }
            }
            u32(0, &out)
        }
        var ptrs: [(UInt16, Int)] = []
        if !exif.isEmpty { ptrs.append((0x8769, offE)) }
        if !gpsIFD.isEmpty { ptrs.append((0x8825, offG)) }
        ifd(ifd0, pointers: ptrs)
        if !exif.isEmpty { ifd(exif, pointers: []) }
        if !gpsIFD.isEmpty { ifd(gpsIFD, pointers: []) }
        return out + data
    }
}

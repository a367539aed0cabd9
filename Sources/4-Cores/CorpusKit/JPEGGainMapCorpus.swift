import Digest
import Findings
import Foundation
import GainMap

/// JPEG gain-map files built from generated pixels (a colour gradient and a grey ramp, never a photo): a faithful
/// file in each form readers know (Ultra HDR v1 `hdrgm` XMP + GContainer, ISO 21496-1 APP2 blocks, Apple MPF + XMP),
/// the same primary without a gain map, and one mutation per JPEG-only fault, each assembled whole so it carries
/// its one fault and nothing else.
public enum JPEGGainMapCorpus {
    /// The forms a file can take.
    public enum Form: String, Sendable, CaseIterable {
        case ultraHDR = "ultrahdr"
        case iso = "iso21496"
        case apple
    }

    /// What a build leaves out or gets wrong (all false/zero: a faithful file).
    public struct Faults: Sendable, Equatable {
        public var noMPF = false
        public var noPrimaryXMP = false
        public var noGainMapMetadata = false
        public var mpfOffsetPastEOF = false
        public var containerLengthDelta = 0
        /// Cut this many bytes off the end of the gain-map image (a truncated trailer).
        public var gainMapBytesCut = 0
        /// Only the primary, with its XMP and MPF still announcing the gain map.
        public var dropTrailer = false
        public init() {}
    }

    /// One mutation: its file name, the code auditing it must raise, what was done, and the build.
    public struct MutationRecipe: Sendable {
        public var file: String
        public var code: FindingCode
        public var note: String
        public var form: Form
        public var faults: Faults
    }

    /// The mutations the auditor must catch, each with its code.
    public static let mutations: [MutationRecipe] = {
        func m(_ file: String, _ code: FindingCode, _ note: String, _ form: Form, _ edit: (inout Faults) -> Void)
            -> MutationRecipe
        {
            var f = Faults()
            edit(&f)
            return MutationRecipe(file: file, code: code, note: note, form: form, faults: f)
        }
        return [
            m("mpf-removed.jpg", .gainmapJpegMpfMissing, "Ultra HDR without its MPF index", .ultraHDR) {
                $0.noMPF = true
            },
            m("hdrgm-xmp-removed.jpg", .gainmapAuxMetadataMissing, "the gain map's hdrgm XMP removed", .ultraHDR) {
                $0.noGainMapMetadata = true
            },
            m(
                "primary-xmp-removed.jpg", .gainmapJpegPrimarySignalMissing,
                "the primary's hdrgm XMP and GContainer directory removed", .ultraHDR
            ) { $0.noPrimaryXMP = true },
            m(
                "gainmap-truncated.jpg", .gainmapDataMissing, "the file cut 100 bytes into the gain map's scan",
                .ultraHDR
            ) {
                $0.gainMapBytesCut = 100
            },
            m(
                "iso-block-removed.jpg", .gainmapAuxMetadataMissing, "the gain map's ISO 21496-1 APP2 block removed",
                .iso
            ) {
                $0.noGainMapMetadata = true
            },
            m(
                "trailer-dropped.jpg", .gainmapJpegImageAbsent,
                "the primary saved alone, its XMP and MPF still announcing the gain map", .ultraHDR
            ) { $0.dropTrailer = true },
            m("mpf-offset-past-eof.jpg", .gainmapJpegMpfOffsetPastEof, "MPF image 2 offset past the end", .ultraHDR) {
                $0.mpfOffsetPastEOF = true
            },
            m(
                "container-length-wrong.jpg", .gainmapJpegXmpLengthMismatch,
                "GContainer Item:Length 100 bytes more than the gain map", .ultraHDR
            ) { $0.containerLengthDelta = 100 },
        ]
    }()

    /// The primary's pixels: a 64x48 colour gradient.
    static func primaryJPEG() -> [UInt8] {
        let w = 64
        let h = 48
        var rgb = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for x in 0..<w {
                let i = 3 * (y * w + x)
                rgb[i] = UInt8(x * 255 / (w - 1))
                rgb[i + 1] = UInt8(y * 255 / (h - 1))
                rgb[i + 2] = UInt8((x + y) * 255 / (w + h - 2))
            }
        }
        return BaselineJPEG.encode(rgb: rgb, width: w, height: h, quality: 90)
    }

    /// The gain map's pixels: a 32x24 grey ramp (half the primary's size).
    static func gainMapJPEG() -> [UInt8] {
        let w = 32
        let h = 24
        var rgb = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for x in 0..<w { for c in 0..<3 { rgb[3 * (y * w + x) + c] = UInt8(40 + x * 200 / (w - 1)) } }
        }
        return BaselineJPEG.encode(rgb: rgb, width: w, height: h, quality: 90)
    }

    static let hdrgmNS = "http://ns.adobe.com/hdr-gain-map/1.0/"

    static func xmpPacket(_ attributes: String, _ body: String = "") -> [UInt8] {
        let s = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Readback corpus">
             <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
              <rdf:Description rdf:about="" \(attributes)>\(body)</rdf:Description>
             </rdf:RDF>
            </x:xmpmeta>
            """
        return Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(s.utf8)
    }

    /// The gain map's `hdrgm` values (2 stops of headroom, SDR base).
    static let gainMapXMP = xmpPacket(
        """
        xmlns:hdrgm="\(hdrgmNS)" hdrgm:Version="1.0" hdrgm:GainMapMin="0" hdrgm:GainMapMax="2" hdrgm:Gamma="1" \
        hdrgm:OffsetSDR="0.015625" hdrgm:OffsetHDR="0.015625" hdrgm:HDRCapacityMin="0" hdrgm:HDRCapacityMax="2" \
        hdrgm:BaseRenditionIsHDR="False"
        """)

    /// The primary's Ultra HDR XMP: `hdrgm:Version` and the GContainer directory.
    static func primaryXMP(gainMapLength: Int) -> [UInt8] {
        xmpPacket(
            """
            xmlns:hdrgm="\(hdrgmNS)" xmlns:Container="http://ns.google.com/photos/1.0/container/" \
            xmlns:Item="http://ns.google.com/photos/1.0/container/item/" hdrgm:Version="1.0"
            """,
            """
            <Container:Directory><rdf:Seq>\
            <rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="Primary" Item:Mime="image/jpeg"/></rdf:li>\
            <rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="GainMap" Item:Mime="image/jpeg" \
            Item:Length="\(gainMapLength)"/></rdf:li></rdf:Seq></Container:Directory>
            """)
    }

    /// The ISO 21496-1 APP2 payload of the gain map: the `tmap` body without its version byte.
    static func isoGainMapBlock() -> [UInt8] {
        let m = AdobeGainMapXMP.parse(Array(gainMapXMP.dropFirst(29)))!.isoMetadata!
        let body = (try? ToneMapImage(metadata: m).encoded()) ?? [0]
        return JPEGScanner.isoSignature + Array(body.dropFirst())
    }

    /// `jpeg` with APP segments inserted right after its SOI.
    static func inserting(_ segments: [(UInt8, [UInt8])], into jpeg: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        for (marker, payload) in segments {
            out += [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        }
        return out + jpeg.dropFirst(2)
    }

    /// A little-endian MPF payload for two images: the primary (offset 0) and the gain map at `offset` from the MPF
    /// header.
    static func mpfPayload(primarySize: Int, gainMapSize: Int, offset: Int) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { u16(v & 0xFFFF) + u16((v >> 16) & 0xFFFF) }
        var t: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + u32(8)
        // IFD: MPFVersion, NumberOfImages, MPEntry; next IFD 0; then the entries.
        let entriesAt = 8 + 2 + 3 * 12 + 4
        t += u16(3)
        t += u16(0xB000) + u16(7) + u32(4) + Array("0100".utf8)
        t += u16(0xB001) + u16(4) + u32(1) + u32(2)
        t += u16(0xB002) + u16(7) + u32(32) + u32(entriesAt)
        t += u32(0)
        t += u32(0x2003_0000) + u32(primarySize) + u32(0) + u16(0) + u16(0)
        t += u32(0) + u32(gainMapSize) + u32(offset) + u16(0) + u16(0)
        return Array("MPF\0".utf8) + t
    }
}

extension JPEGGainMapCorpus {
    /// Builds a file of `form` with `faults`.
    public static func build(_ form: Form, _ faults: Faults = Faults()) -> [UInt8] {
        var gm = gainMapJPEG()
        if !faults.noGainMapMetadata {
            switch form {
            case .ultraHDR: gm = inserting([(0xE1, gainMapXMP)], into: gm)
            case .iso: gm = inserting([(0xE2, isoGainMapBlock())], into: gm)
            case .apple:
                gm = inserting(
                    [(0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8) + AppleGainMapXMP.packet(headroom: 4))],
                    into: gm)
            }
        }
        var head: [(UInt8, [UInt8])] = []
        if form == .ultraHDR, !faults.noPrimaryXMP {
            head.append((0xE1, primaryXMP(gainMapLength: gm.count + faults.containerLengthDelta)))
        }
        if form == .iso { head.append((0xE2, JPEGScanner.isoSignature + [0, 0, 0, 0])) }
        let primary = primaryJPEG()
        var file = inserting(head, into: primary)
        if !faults.noMPF {
            // The MPF segment has a fixed size: place it with zero offsets, then fill them in.
            let placeholder = mpfPayload(primarySize: 0, gainMapSize: 0, offset: 0)
            let base = file.count - primary.count + 2 + 4 + 4  // after SOI, head, FF E2 len, "MPF\0"
            let total = file.count + placeholder.count + 4
            let mpf = mpfPayload(
                primarySize: total, gainMapSize: gm.count,
                offset: total - base + (faults.mpfOffsetPastEOF ? gm.count + 4096 : 0))
            file =
                Array(file[..<(file.count - primary.count + 2)]) + [0xFF, 0xE2] + [
                    UInt8((mpf.count + 2) >> 8), UInt8((mpf.count + 2) & 0xFF),
                ] + mpf + primary.dropFirst(2)
        }
        if faults.dropTrailer { return file }
        return file + gm.dropLast(faults.gainMapBytesCut)
    }

    /// Writes `jpeg/<form>.jpg`, `jpeg/plain.jpg` (the primary alone) and `jpeg/mutations/` with its `MUTATIONS`
    /// list into `folder`.
    /// - Returns: the manifest rows.
    public static func write(into folder: URL, progress: (String) -> Void) throws -> [ManifestEntry] {
        let fm = FileManager.default
        let dir = folder.appendingPathComponent("jpeg")
        let mdir = dir.appendingPathComponent("mutations")
        if fm.fileExists(atPath: mdir.path) { try fm.removeItem(at: mdir) }
        try fm.createDirectory(at: mdir, withIntermediateDirectories: true)
        var rows: [ManifestEntry] = []
        func put(_ name: String, _ bytes: [UInt8], _ recipe: String, _ exercises: String, _ expected: String) throws {
            try Data(bytes).write(to: dir.appendingPathComponent(name))
            progress("jpeg/\(name)")
            rows.append(
                ManifestEntry(
                    file: "jpeg/\(name)", recipe: recipe, seed: 0, exercises: exercises, expectedAudit: expected,
                    sha256: SHA256.hex(bytes)))
        }
        for f in Form.allCases {
            try put(
                "\(f.rawValue).jpg", build(f), "JPEG gain map, \(f.rawValue) form, generated pixels",
                "a complete JPEG gain map read through MPF", "clean")
        }
        try put(
            "plain.jpg", primaryJPEG(), "the primary of jpeg/*.jpg alone", "a JPEG without a gain map",
            "\(FindingCode.gainmapMissing.rawValue) against jpeg/ultrahdr.jpg")
        var lines = ["file\tcode\tsha256\tnote"]
        for m in mutations {
            let bytes = build(m.form, m.faults)
            try put(
                "mutations/\(m.file)", bytes, "mutation of jpeg/\(m.form.rawValue).jpg", m.note, m.code.rawValue)
            lines.append("\(m.file)\t\(m.code.rawValue)\t\(SHA256.hex(bytes))\t\(m.note)")
        }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: mdir.appendingPathComponent("MUTATIONS"))
        return rows
    }
}

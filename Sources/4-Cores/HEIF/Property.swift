import ColorScience

/// `clap` clean aperture (ISO/IEC 14496-12 §12.1.4): four fractions.
public struct CleanAperture: Sendable, Hashable, Codable {
    public var widthN: UInt32, widthD: UInt32, heightN: UInt32, heightD: UInt32
    public var horizOffN: Int32, horizOffD: UInt32, vertOffN: Int32, vertOffD: UInt32
    public init(
        widthN: UInt32, widthD: UInt32, heightN: UInt32, heightD: UInt32, horizOffN: Int32, horizOffD: UInt32,
        vertOffN: Int32, vertOffD: UInt32
    ) {
        self.widthN = widthN
        self.widthD = widthD
        self.heightN = heightN
        self.heightD = heightD
        self.horizOffN = horizOffN
        self.horizOffD = horizOffD
        self.vertOffN = vertOffN
        self.vertOffD = vertOffD
    }
}

/// `mdcv` mastering display colour volume (ISO/IEC 23008-12 §6.5.x; units: 0.00002 chromaticity, 0.0001 cd/m²).
public struct MasteringDisplay: Sendable, Hashable, Codable {
    /// (x, y) for the three primaries in the file's order (H.265 SEI order G, B, R).
    public var primaries: [UInt16]
    public var whitePointX: UInt16, whitePointY: UInt16
    public var maxLuminance: UInt32, minLuminance: UInt32
    public init(
        primaries: [UInt16], whitePointX: UInt16, whitePointY: UInt16, maxLuminance: UInt32, minLuminance: UInt32
    ) {
        self.primaries = primaries
        self.whitePointX = whitePointX
        self.whitePointY = whitePointY
        self.maxLuminance = maxLuminance
        self.minLuminance = minLuminance
    }
}

/// One array of NAL units in an `hvcC` record.
public struct NALArray: Sendable, Hashable {
    public var completeness: Bool
    /// NAL unit type (32 VPS, 33 SPS, 34 PPS, 39/40 SEI).
    public var nalType: UInt8
    public var units: [[UInt8]]
    public init(completeness: Bool, nalType: UInt8, units: [[UInt8]]) {
        self.completeness = completeness
        self.nalType = nalType
        self.units = units
    }
}

/// The HEVC decoder configuration record of an `hvcC` property (ISO/IEC 14496-15 §8.3.3.1).
public struct HEVCConfig: Sendable, Hashable {
    public var generalProfileSpace: UInt8
    public var generalTierFlag: Bool
    /// general_profile_idc: 1 Main, 2 Main 10, 3 Main Still Picture, 4 Range Extensions.
    public var generalProfileIDC: UInt8
    public var generalLevelIDC: UInt8
    /// chroma_format_idc: 0 4:0:0, 1 4:2:0, 2 4:2:2, 3 4:4:4.
    public var chromaFormat: UInt8
    public var bitDepthLuma: UInt8
    public var bitDepthChroma: UInt8
    /// Bytes in the length prefix of each NAL unit in the item data (lengthSizeMinusOne + 1).
    public var nalLengthSize: UInt8
    public var arrays: [NALArray]
    /// The whole record, exactly as stored (the box body).
    public var raw: [UInt8]
}

/// The AV1 codec configuration record of an `av1C` property (AV1-ISOBMFF §2.3).
public struct AV1Config: Sendable, Hashable {
    public var seqProfile: UInt8
    public var seqLevelIdx0: UInt8
    public var highBitdepth: Bool
    public var twelveBit: Bool
    public var monochrome: Bool
    public var chromaSubsamplingX: Bool
    public var chromaSubsamplingY: Bool
    /// The whole record, exactly as stored (the box body).
    public var raw: [UInt8]
    /// Bit depth from the flags: 8, 10 or 12.
    public var bitDepth: Int { highBitdepth ? (twelveBit ? 12 : 10) : 8 }
}

/// An item property from `ipco` (ISO/IEC 23008-12 §6.5), typed where Readback reads it, raw otherwise.
public enum Property: Sendable, Hashable {
    /// `ispe` image spatial extents.
    case ispe(width: UInt32, height: UInt32)
    /// `pixi` bits per channel.
    case pixi(bitsPerChannel: [UInt8])
    /// `colr` of type `nclx`.
    case colrNCLX(NCLX)
    /// `colr` of type `prof` or `rICC`: the ICC profile bytes.
    case colrICC(type: FourCC, profile: [UInt8])
    /// `irot`: anticlockwise rotation in units of 90°.
    case irot(quarterTurns: UInt8)
    /// `imir`: 0 = top and bottom swap, 1 = left and right swap (23008-12 AMD2 `mode`; libheif and Apple read it
    /// so; the 2017 text's "vertical axis (axis = 0)" was read the other way by some, MPEGGroup/FileFormat#22).
    case imir(axis: UInt8)
    case clap(CleanAperture)
    case pasp(hSpacing: UInt32, vSpacing: UInt32)
    /// `auxC`: the auxiliary type URN and the subtype bytes that follow its NUL.
    case auxC(urn: String, subtype: [UInt8])
    case hvcC(HEVCConfig)
    case av1C(AV1Config)
    /// `clli`: max content light level, max picture-average light level (cd/m²).
    case clli(maxCLL: UInt16, maxPALL: UInt16)
    case mdcv(MasteringDisplay)
    /// Any other property, or one whose fields could not be read: the body after the 8-byte header.
    case unknown(type: FourCC, body: [UInt8])

    /// The box type.
    public var type: FourCC {
        switch self {
        case .ispe: return "ispe"
        case .pixi: return "pixi"
        case .colrNCLX, .colrICC: return "colr"
        case .irot: return "irot"
        case .imir: return "imir"
        case .clap: return "clap"
        case .pasp: return "pasp"
        case .auxC: return "auxC"
        case .hvcC: return "hvcC"
        case .av1C: return "av1C"
        case .clli: return "clli"
        case .mdcv: return "mdcv"
        case .unknown(let t, _): return t
        }
    }

    /// True for the transformative properties (ISO/IEC 23008-12 §6.5.1): clap, irot, imir (and iscl, rloc).
    public var isTransformative: Bool {
        switch type {
        case "clap", "irot", "imir", "iscl": return true
        default: return false
        }
    }

    /// Parses a property box body. Returns `nil` when the fields cannot be read (the caller keeps it raw).
    /// - Parameters:
    ///   - type: the box type.
    ///   - bytes: the file.
    ///   - body: the body range (after the 8- or 16-byte header).
    static func parse(type: FourCC, bytes: [UInt8], body: Range<Int>) -> Property? {
        var r = ByteReader(bytes, from: body.lowerBound, to: body.upperBound)
        switch type {
        case "ispe":
            guard r.skip(4), let w = r.u32(), let h = r.u32() else { return nil }
            return .ispe(width: w, height: h)
        case "pixi":
            guard r.skip(4), let n = r.u8(), let b = r.take(Int(n)) else { return nil }
            return .pixi(bitsPerChannel: b)
        case "colr":
            guard let t = r.fourCC() else { return nil }
            if t == "nclx" {
                guard let p = r.u16(), let tc = r.u16(), let m = r.u16(), let f = r.u8() else { return nil }
                return .colrNCLX(
                    NCLX(
                        colourPrimaries: p, transferCharacteristics: tc, matrixCoefficients: m, fullRange: f & 0x80 != 0
                    ))
            }
            if t == "prof" || t == "rICC" { return .colrICC(type: t, profile: r.rest()) }
            return nil
        case "irot":
            guard let b = r.u8() else { return nil }
            return .irot(quarterTurns: b & 3)
        case "imir":
            guard let b = r.u8() else { return nil }
            return .imir(axis: b & 1)
        case "clap":
            guard let a = r.u32(), let b = r.u32(), let c = r.u32(), let d = r.u32(), let e = r.u32(), let f = r.u32(),
                let g = r.u32(), let h = r.u32()
            else { return nil }
            return .clap(
                CleanAperture(
                    widthN: a, widthD: b, heightN: c, heightD: d, horizOffN: Int32(bitPattern: e), horizOffD: f,
                    vertOffN: Int32(bitPattern: g), vertOffD: h))
        case "pasp":
            guard let h = r.u32(), let v = r.u32() else { return nil }
            return .pasp(hSpacing: h, vSpacing: v)
        case "auxC":
            guard r.skip(4), let s = r.cString() else { return nil }
            return .auxC(urn: s.value, subtype: r.rest())
        case "hvcC":
            return parseHVCC(&r).map(Property.hvcC)
        case "av1C":
            let raw = Array(bytes[body])
            guard raw.count >= 4 else { return nil }
            return .av1C(
                AV1Config(
                    seqProfile: raw[1] >> 5, seqLevelIdx0: raw[1] & 0x1F, highBitdepth: raw[2] & 0x40 != 0,
                    twelveBit: raw[2] & 0x20 != 0, monochrome: raw[2] & 0x10 != 0,
                    chromaSubsamplingX: raw[2] & 0x08 != 0,
                    chromaSubsamplingY: raw[2] & 0x04 != 0, raw: raw))
        case "clli":
            guard let a = r.u16(), let b = r.u16() else { return nil }
            return .clli(maxCLL: a, maxPALL: b)
        case "mdcv":
            var p: [UInt16] = []
            for _ in 0..<6 {
                guard let v = r.u16() else { return nil }
                p.append(v)
            }
            guard let wx = r.u16(), let wy = r.u16(), let mx = r.u32(), let mn = r.u32() else { return nil }
            return .mdcv(
                MasteringDisplay(primaries: p, whitePointX: wx, whitePointY: wy, maxLuminance: mx, minLuminance: mn))
        default:
            return .unknown(type: type, body: Array(bytes[body]))
        }
    }

    static func parseHVCC(_ r: inout ByteReader) -> HEVCConfig? {
        let start = r.pos
        guard r.skip(1), let b1 = r.u8(), r.skip(4 + 6), let level = r.u8(), r.skip(2 + 1), let chroma = r.u8(),
            let bdl = r.u8(), let bdc = r.u8(), r.skip(2), let b21 = r.u8(), let nArrays = r.u8()
        else { return nil }
        var arrays: [NALArray] = []
        for _ in 0..<Int(nArrays) {
            guard let h = r.u8(), let n = r.u16() else { return nil }
            var units: [[UInt8]] = []
            for _ in 0..<Int(n) {
                guard let len = r.u16(), let u = r.take(Int(len)) else { return nil }
                units.append(u)
            }
            arrays.append(NALArray(completeness: h & 0x80 != 0, nalType: h & 0x3F, units: units))
        }
        let raw = Array(r.bytes[start..<r.end])
        return HEVCConfig(
            generalProfileSpace: b1 >> 6, generalTierFlag: b1 & 0x20 != 0, generalProfileIDC: b1 & 0x1F,
            generalLevelIDC: level, chromaFormat: chroma & 3, bitDepthLuma: (bdl & 7) + 8,
            bitDepthChroma: (bdc & 7) + 8,
            nalLengthSize: (b21 & 3) + 1, arrays: arrays, raw: raw)
    }

    /// The whole property box, header included, in the smallest form (ISO/IEC 23008-12 §6.5).
    public func encoded() -> [UInt8] {
        var w = ByteWriter()
        switch self {
        case .ispe(let wd, let h):
            w.fullBoxHeader(0, 0)
            w.u32(wd)
            w.u32(h)
        case .pixi(let b):
            w.fullBoxHeader(0, 0)
            w.u8(UInt8(truncatingIfNeeded: b.count))
            w.append(b.prefix(255))
        case .colrNCLX(let n):
            w.fourCC("nclx")
            w.u16(n.colourPrimaries)
            w.u16(n.transferCharacteristics)
            w.u16(n.matrixCoefficients)
            w.u8(n.fullRange ? 0x80 : 0)
        case .colrICC(let t, let p):
            w.fourCC(t)
            w.append(p)
        case .irot(let q): w.u8(q & 3)
        case .imir(let a): w.u8(a & 1)
        case .clap(let c):
            for v in [
                c.widthN, c.widthD, c.heightN, c.heightD, UInt32(bitPattern: c.horizOffN), c.horizOffD,
                UInt32(bitPattern: c.vertOffN), c.vertOffD,
            ] {
                w.u32(v)
            }
        case .pasp(let h, let v):
            w.u32(h)
            w.u32(v)
        case .auxC(let urn, let sub):
            w.fullBoxHeader(0, 0)
            w.cString(urn)
            w.append(sub)
        case .hvcC(let c): w.append(c.raw)
        case .av1C(let c): w.append(c.raw)
        case .clli(let a, let b):
            w.u16(a)
            w.u16(b)
        case .mdcv(let m):
            for p in m.primaries.prefix(6) { w.u16(p) }
            for _ in m.primaries.count..<6 { w.u16(0) }
            w.u16(m.whitePointX)
            w.u16(m.whitePointY)
            w.u32(m.maxLuminance)
            w.u32(m.minLuminance)
        case .unknown(_, let body): w.append(body)
        }
        return ByteWriter.box(type, w.bytes)
    }
}

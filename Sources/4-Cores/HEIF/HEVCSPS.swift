/// The picture size an HEVC sequence parameter set codes (ITU-T H.265 §7.3.2.2.1): the luma size, the conformance
/// window and the chroma format, so `ispe` can be checked against what the stream decodes to (ISO/IEC 23008-12
/// §6.5.3.1: `ispe` gives the size of the reconstructed image, before transforms); and the luma bit depth and coding
/// tree block size, the intra transform depth and whether scaling lists are on, which follow them and say how a stream
/// was coded.
public struct HEVCPictureSize: Sendable, Equatable {
    /// pic_width_in_luma_samples and pic_height_in_luma_samples.
    public var codedWidth: Int
    public var codedHeight: Int
    /// chroma_format_idc: 0 = 4:0:0, 1 = 4:2:0, 2 = 4:2:2, 3 = 4:4:4.
    public var chromaFormat: Int
    /// The conformance window's offsets in chroma units: left, right, top, bottom.
    public var window: (left: Int, right: Int, top: Int, bottom: Int)
    /// bit_depth_luma_minus8 + 8; nil when the SPS ends before it.
    public var lumaBitDepth: Int?
    /// CtbSizeY, the coding tree block's side (16, 32 or 64 in the Main profiles); nil when the SPS ends before it.
    public var codingTreeBlockSize: Int?
    /// max_transform_hierarchy_depth_intra: how many times an intra coding unit's transform may split (x265's
    /// `tu-intra-depth` − 1); nil when the SPS ends before it.
    public var intraTransformDepth: Int?
    /// scaling_list_enabled_flag: the stream scales its transform coefficients by frequency (HEVC's default lists or
    /// its own) rather than flat; nil when the SPS ends before it.
    public var scalingLists: Bool?

    /// The decoded size: the coded size minus the conformance window (offsets × SubWidthC / SubHeightC).
    public var width: Int {
        codedWidth - (chromaFormat == 1 || chromaFormat == 2 ? 2 : 1) * (window.left + window.right)
    }
    public var height: Int { codedHeight - (chromaFormat == 1 ? 2 : 1) * (window.top + window.bottom) }

    public static func == (a: Self, b: Self) -> Bool {
        a.codedWidth == b.codedWidth && a.codedHeight == b.codedHeight && a.chromaFormat == b.chromaFormat
            && a.window == b.window && a.lumaBitDepth == b.lumaBitDepth
            && a.codingTreeBlockSize == b.codingTreeBlockSize && a.intraTransformDepth == b.intraTransformDepth
            && a.scalingLists == b.scalingLists
    }

    /// Reads an SPS NAL unit (its 2-byte header included, emulation-prevention bytes still in); nil when it is not
    /// an SPS (type 33) or ends early.
    public init?(spsNAL nal: [UInt8]) {
        guard nal.count > 3, (nal[0] >> 1) & 0x3F == 33 else { return nil }
        // The RBSP: 0x000003 → 0x0000.
        var rbsp: [UInt8] = []
        rbsp.reserveCapacity(nal.count)
        var zeros = 0
        for b in nal.dropFirst(2) {
            if zeros >= 2 && b == 3 {
                zeros = 0
                continue
            }
            zeros = b == 0 ? zeros + 1 : 0
            rbsp.append(b)
        }
        var r = BitReader(rbsp)
        guard r.skip(4), let maxSubLayersMinus1 = r.bits(3), r.skip(1) else { return nil }
        // profile_tier_level(1, sps_max_sub_layers_minus1): 88 bits of general profile, 8 of general level.
        guard r.skip(96) else { return nil }
        var subProfile: [Bool] = []
        var subLevel: [Bool] = []
        for _ in 0..<maxSubLayersMinus1 {
            guard let p = r.bits(1), let l = r.bits(1) else { return nil }
            subProfile.append(p == 1)
            subLevel.append(l == 1)
        }
        if maxSubLayersMinus1 > 0 { guard r.skip(2 * (8 - maxSubLayersMinus1)) else { return nil } }
        for i in 0..<maxSubLayersMinus1 {
            if subProfile[i] { guard r.skip(88) else { return nil } }
            if subLevel[i] { guard r.skip(8) else { return nil } }
        }
        guard r.ue() != nil, let chroma = r.ue(), chroma <= 3 else { return nil }
        if chroma == 3 { guard r.skip(1) else { return nil } }
        guard let w = r.ue(), let h = r.ue(), let flag = r.bits(1) else { return nil }
        var window = (left: 0, right: 0, top: 0, bottom: 0)
        if flag == 1 {
            guard let a = r.ue(), let b = r.ue(), let c = r.ue(), let d = r.ue() else { return nil }
            window = (a, b, c, d)
        }
        codedWidth = w
        codedHeight = h
        chromaFormat = chroma
        self.window = window
        // bit depths, log2_max_pic_order_cnt_lsb_minus4, the sub-layer ordering info, then the coding block sizes.
        guard let lumaDepth = r.ue(), r.ue() != nil, r.ue() != nil, let allLayers = r.bits(1) else { return }
        lumaBitDepth = lumaDepth + 8
        for _ in (allLayers == 1 ? 0 : maxSubLayersMinus1)...maxSubLayersMinus1 {
            guard r.ue() != nil, r.ue() != nil, r.ue() != nil else { return }
        }
        guard let minCB = r.ue(), let diff = r.ue(), minCB + diff <= 3 else { return }
        codingTreeBlockSize = 1 << (minCB + 3 + diff)
        // The transform block sizes and the two transform hierarchy depths, then scaling_list_enabled_flag.
        guard r.ue() != nil, r.ue() != nil, r.ue() != nil, let intra = r.ue() else { return }
        intraTransformDepth = intra
        guard let lists = r.bits(1) else { return }
        scalingLists = lists == 1
    }

    /// The first SPS of an `hvcC`'s NAL arrays.
    public init?(_ config: HEVCConfig) {
        guard let sps = config.arrays.first(where: { $0.nalType == 33 })?.units.first else { return nil }
        self.init(spsNAL: sps)
    }
}

/// Reads bits most significant first, and Exp-Golomb codes (H.265 §9.2).
struct BitReader {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func bits(_ n: Int) -> Int? {
        guard n >= 0, position + n <= bytes.count * 8 else { return nil }
        var v = 0
        for _ in 0..<n {
            v = v << 1 | Int(bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1)
            position += 1
        }
        return v
    }

    mutating func skip(_ n: Int) -> Bool {
        guard n >= 0, position + n <= bytes.count * 8 else { return false }
        position += n
        return true
    }

    /// ue(v), at most 31 leading zeros.
    mutating func ue() -> Int? {
        var zeros = 0
        while true {
            guard let b = bits(1) else { return nil }
            if b == 1 { break }
            zeros += 1
            if zeros > 31 { return nil }
        }
        guard let rest = bits(zeros) else { return nil }
        return (1 << zeros) - 1 + rest
    }
}

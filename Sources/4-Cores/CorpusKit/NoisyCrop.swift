import Foundation

/// A real RAW made noisy by scaling its exposure, with the noise known: the quality ladder's real-noise images.
///
/// A crop of a real file's raw samples is taken as the clean signal. Its exposure is scaled down by k = ISO / the
/// file's ISO (k× less light: what a k× higher ISO records), photons and read noise are drawn in electrons with
/// `SensorNoise`'s model (Poisson shot noise, Gaussian read noise at the new ISO, the full well of 60,000 e⁻ at ISO 100
/// mapped to the file's white level), and the signal is scaled back up by k. So a photosite whose clean value is d DN
/// above black reads, in the crop's DN, with variance d · k / g + (σ_r · k / g)² on top of the file's own noise, g the
/// file's conversion gain at its ISO. The file itself stays as it is; only its raw image is replaced.
///
/// The DNG written keeps every tag of the source's IFD0 and Exif IFD (camera matrices, white balance,
/// BaselineExposure, Orientation, MakerNote, XMP) except what describes the raw image: one uncompressed 16-bit
/// strip of the crop, CFA tags from the source's raw IFD, no ActiveArea or default crop, no opcode lists (LibRaw and
/// Readback applied them to the samples already), no previews; the Exif ISO is the new one. Samples are scaled by the
/// whole factor m = ⌊65535 / white⌋, so an 8-bit LinearRaw source does not quantise the noise away.
public enum NoisyCrop {
    /// A crop of a real RAW's samples (RawDecoder's `RawSamples`, without the dependency).
    public struct Samples: Sendable {
        public var width: Int
        public var height: Int
        /// 1 (CFA) or 3 (LinearRaw, interleaved).
        public var channels: Int
        public var values: [UInt16]
        public var black: Int
        public var white: Int

        public init(width: Int, height: Int, channels: Int, values: [UInt16], black: Int, white: Int) {
            (self.width, self.height, self.channels, self.values) = (width, height, channels, values)
            (self.black, self.white) = (black, white)
        }
    }

    /// What was done, with the numbers that make σ known.
    public struct Recipe: Sendable, Equatable {
        /// The source's Exif ISO (100 when it has none) and the simulated one.
        public var sourceISO: Int
        public var iso: Int
        /// Exposure factor k = iso / sourceISO.
        public var k: Double
        /// Conversion gain of the written file, e⁻ per written DN, at the simulated ISO.
        public var gain: Double
        /// Read noise at the simulated ISO, e⁻ RMS.
        public var readNoise: Double
        /// Scale m from source DN to written DN, and the written black and white levels.
        public var scale: Int
        public var black: Int
        public var white: Int

        /// σ in written DN of a photosite whose clean value is `d` written DN above black: shot and read noise.
        public func sigma(signal d: Double) -> Double { (max(0, d) / gain + pow(readNoise / gain, 2)).squareRoot() }
    }

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// Tags of IFD0 that describe the image data, a preview or the source's raw layout: never carried over.
    static let dropped: Set<UInt16> = [
        254, 255, 256, 257, 258, 259, 262, 273, 277, 278, 279, 284, 322, 323, 324, 325, 330, 513, 514,
        TIFFIFD.thumbnailKey, 33421, 33422, 50710, 50711, 50712, 50713, 50714, 50715, 50716, 50717, 50718, 50719,
        50720, 50733, 50738, 50780, 50829, 50830, 51008, 51009, 51022, 51041,
    ]
    /// Tags of the raw IFD that the crop keeps (CFA layout, scale).
    static let rawKept: [UInt16] = [33421, 33422, 50710, 50711, 50718, 50738, 50780]

    /// The noisy DNG.
    /// - Parameters:
    ///   - original: the source DNG's bytes (its tags are kept).
    ///   - crop: the clean samples.
    ///   - iso: the simulated ISO (≥ the source's).
    ///   - seed: the noise seed; the same inputs give the same bytes.
    public static func dng(original: [UInt8], crop: Samples, iso: Int, seed: UInt64 = 1) throws -> (
        bytes: [UInt8], recipe: Recipe
    ) {
        guard let reader = TIFFReader(bytes: original), let ifd0 = reader.readTree() else {
            throw Failure(description: "not a TIFF-based RAW")
        }
        guard rawIFD(ifd0) != nil else { throw Failure(description: "no raw image IFD (NewSubFileType 0)") }
        guard crop.white > crop.black, crop.values.count == crop.width * crop.height * crop.channels else {
            throw Failure(description: "samples inconsistent with their size or levels")
        }
        let exif = ifd0[34665].flatMap { if case .ifd(let e) = $0 { return e } else { return nil } }
        let sourceISO =
            (exif.flatMap { firstInteger($0[34855]) } ?? firstInteger(ifd0[34855])).flatMap { $0 > 0 ? $0 : nil } ?? 100
        guard iso >= sourceISO else { throw Failure(description: "ISO \(iso) is below the file's \(sourceISO)") }
        let m = max(1, 65535 / crop.white)
        let k = Double(iso) / Double(sourceISO)
        let range = Double(m * (crop.white - crop.black))
        let gain = SensorNoise.fullWell * 100 / Double(sourceISO) / range / k
        let noise = SensorNoise(iso: iso)
        let recipe = Recipe(
            sourceISO: sourceISO, iso: iso, k: k, gain: gain, readNoise: noise.readNoise, scale: m,
            black: m * crop.black, white: m * crop.white)
        var rng = SplitMix64(seed: seed)
        let codes = crop.values.map { v in
            noise.code(
                clean: Double(m * (Int(v) - crop.black)), gain: gain, black: Double(recipe.black),
                white: Double(recipe.white), rng: &rng)
        }
        let written = Samples(
            width: crop.width, height: crop.height, channels: crop.channels, values: codes, black: recipe.black,
            white: recipe.white)
        return (try dng(original: original, samples: written, iso: iso), recipe)
    }

    /// A DNG with the source's tags and `samples` as its raw image, written as they are (one uncompressed 16-bit
    /// strip; BlackLevel and WhiteLevel from `samples`): what `dng(original:crop:iso:seed:)` writes its noisy crop as,
    /// and how a test writes a real frame's samples changed in another way (overexposed).
    /// - Parameter iso: the Exif ISO to write; nil keeps the source's.
    public static func dng(original: [UInt8], samples crop: Samples, iso: Int? = nil) throws -> [UInt8] {
        guard let reader = TIFFReader(bytes: original), let ifd0 = reader.readTree() else {
            throw Failure(description: "not a TIFF-based RAW")
        }
        guard let raw = rawIFD(ifd0) else { throw Failure(description: "no raw image IFD (NewSubFileType 0)") }
        guard crop.values.count == crop.width * crop.height * crop.channels else {
            throw Failure(description: "samples inconsistent with their size")
        }
        var exif = ifd0[34665].flatMap { if case .ifd(let e) = $0 { return e } else { return nil } }
        var data = [UInt8]()
        data.reserveCapacity(crop.values.count * 2)
        for code in crop.values {
            if reader.order == .little {
                data += [UInt8(code & 0xFF), UInt8(code >> 8)]
            } else {
                data += [UInt8(code >> 8), UInt8(code & 0xFF)]
            }
        }
        var out = TIFFIFD(entries: ifd0.entries.filter { !dropped.contains($0.key) }, imageData: data)
        for tag in rawKept { if let v = raw[tag] { out[tag] = v } }
        out[254] = .longs([0])
        out[256] = .longs([UInt32(crop.width)])
        out[257] = .longs([UInt32(crop.height)])
        out[258] = .shorts([UInt16](repeating: 16, count: crop.channels))
        out[259] = .shorts([1])
        out[262] = raw[262] ?? .shorts([crop.channels == 1 ? 32803 : 34892])
        out[277] = .shorts([UInt16(crop.channels)])
        out[278] = .longs([UInt32(crop.height)])
        out[284] = .shorts([1])
        out[50713] = .shorts([1, 1])
        out[50714] = .longs([UInt32](repeating: UInt32(crop.black), count: crop.channels))
        out[50717] = .longs([UInt32](repeating: UInt32(crop.white), count: crop.channels))
        if let iso {
            if out[34855] != nil { out[34855] = .shorts([UInt16(min(65535, iso))]) }
            if exif != nil {
                exif![34855] = .shorts([UInt16(min(65535, iso))])
                if exif![34867] != nil { exif![34867] = .longs([UInt32(iso)]) }
            }
        }
        if let exif { out[34665] = .ifd(exif) }
        return TIFFWriter.serialize(out, order: reader.order)
    }

    /// The IFD holding the full-resolution raw image: IFD0, or one of its SubIFDs, whose NewSubFileType is 0.
    static func rawIFD(_ ifd0: TIFFIFD) -> TIFFIFD? {
        func isRaw(_ i: TIFFIFD) -> Bool {
            let type = firstInteger(i[254]) ?? 0
            let photometric = firstInteger(i[262]) ?? 0
            return type == 0 && (photometric == 32803 || photometric == 34892)
        }
        if isRaw(ifd0) { return ifd0 }
        if case .ifds(let kids)? = ifd0[330] { return kids.first(where: isRaw) }
        return nil
    }

    /// The first value of a SHORT or LONG entry.
    static func firstInteger(_ v: TIFFValue?) -> Int? {
        switch v {
        case .shorts(let s)?: return s.first.map(Int.init)
        case .longs(let l)?: return l.first.map(Int.init)
        default: return nil
        }
    }
}

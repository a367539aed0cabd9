import Findings
import HEIF

/// The result of reading a `tmap` body: what could be parsed and everything wrong with it.
public struct ToneMapDecoding: Sendable, Hashable {
    /// The parsed body; nil only for an empty body.
    public var image: ToneMapImage?
    /// Findings from `GainMapValidation.validate`, sorted by offset then code.
    public var findings: [Finding]

    /// The metadata a reader may use: present and with no error-level finding (libavif would use it).
    public var usableMetadata: GainMapMetadata? {
        findings.contains { $0.severity == .error } ? nil : image?.metadata
    }
}

/// Errors from encoding gain-map metadata.
public enum GainMapError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The metadata fails validation; the findings say why.
    case invalidMetadata([Finding])
    /// A writer input is unusable (the message says which and why).
    case invalidInput(String)

    public var description: String {
        switch self {
        case .invalidMetadata(let f): "invalid gain-map metadata: " + f.map(\.description).joined(separator: "; ")
        case .invalidInput(let m): "invalid gain-map input: \(m)"
        }
    }
}

extension ToneMapImage {
    /// Reads a `tmap` item body (ISO/IEC 23008-12 AMD 1 ToneMapImage; ISO 21496-1 C.2.2) and validates it.
    ///
    /// Never traps: a short body yields `gainmap.tmap.length`, an unknown version `gainmap.tmap.version-unsupported`.
    /// The libultrahdr common-denominator form (flag 0x08) is read too and reported as non-conformant.
    /// - Parameter body: the item's bytes (from `iloc`).
    /// - Returns: the parse and its findings (one validation function, shared with the writer).
    public static func decode(_ body: [UInt8]) -> ToneMapDecoding {
        guard let image = parse(body) else {
            return ToneMapDecoding(
                image: nil,
                findings: [Finding(.gainmapTmapLength, message: "tmap body is empty", evidence: Evidence(offset: 0))])
        }
        return ToneMapDecoding(image: image, findings: GainMapValidation.validate(image))
    }

    /// Parses without judging; returns nil for an empty body.
    static func parse(_ body: [UInt8]) -> ToneMapImage? {
        var r = ByteReader(body)
        guard let version = r.u8() else { return nil }
        func stop(_ layout: Layout, required: Int, meta: GainMapMetadata? = nil) -> ToneMapImage {
            ToneMapImage(
                version: version, metadata: meta, layout: layout, byteCount: body.count, required: required,
                truncatedAt: body.count)
        }
        guard version == 0 else {
            return ToneMapImage(
                version: version, metadata: nil, layout: .standard, byteCount: body.count, required: body.count,
                truncatedAt: nil)
        }
        guard let minV = r.u16(), let writerV = r.u16(), let flags = r.u8() else {
            return stop(.standard, required: 62)
        }
        let channelCount = flags & 0x80 != 0 ? 3 : 1
        let common = flags & 0x08 != 0
        let layout: Layout = common ? .commonDenominator : .standard
        let required = common ? 1 + 5 + 12 + 20 * channelCount : 1 + 21 + 40 * channelCount
        var meta = GainMapMetadata(
            minimumVersion: minV, writerVersion: writerV, useBaseColorSpace: flags & 0x40 != 0,
            reservedFlags: flags & 0x3F, baseHdrHeadroom: UFraction(0, 0), alternateHdrHeadroom: UFraction(0, 0),
            channels: [])
        if common {
            guard let d = r.u32(), let bh = r.u32(), let ah = r.u32() else { return stop(layout, required: required) }
            meta.baseHdrHeadroom = UFraction(bh, d)
            meta.alternateHdrHeadroom = UFraction(ah, d)
            for _ in 0..<channelCount {
                guard let mn = r.s32(), let mx = r.s32(), let g = r.u32(), let bo = r.s32(), let ao = r.s32() else {
                    return stop(layout, required: required, meta: meta.channels.isEmpty ? nil : meta)
                }
                meta.channels.append(
                    GainMapChannel(
                        min: Fraction(mn, d), max: Fraction(mx, d), gamma: UFraction(g, d),
                        baseOffset: Fraction(bo, d), alternateOffset: Fraction(ao, d)))
            }
        } else {
            guard let bn = r.u32(), let bd = r.u32(), let an = r.u32(), let ad = r.u32() else {
                return stop(layout, required: required)
            }
            meta.baseHdrHeadroom = UFraction(bn, bd)
            meta.alternateHdrHeadroom = UFraction(an, ad)
            for _ in 0..<channelCount {
                guard let mnN = r.s32(), let mnD = r.u32(), let mxN = r.s32(), let mxD = r.u32(),
                    let gN = r.u32(), let gD = r.u32(), let boN = r.s32(), let boD = r.u32(),
                    let aoN = r.s32(), let aoD = r.u32()
                else {
                    return stop(layout, required: required, meta: meta.channels.isEmpty ? nil : meta)
                }
                meta.channels.append(
                    GainMapChannel(
                        min: Fraction(mnN, mnD), max: Fraction(mxN, mxD), gamma: UFraction(gN, gD),
                        baseOffset: Fraction(boN, boD), alternateOffset: Fraction(aoN, aoD)))
            }
        }
        return ToneMapImage(
            version: version, metadata: meta, layout: layout, byteCount: body.count, required: required,
            truncatedAt: nil)
    }

    /// Writes the body: version byte 0, then GainMapMetadata in the standard layout (62 or 142 bytes).
    ///
    /// Runs the same `GainMapValidation.validate` as the reader and refuses any finding, so a writer can
    /// never emit what the reader would flag (no reserved flags, no zero denominators, min ≤ max, version 0).
    /// - Returns: the item body.
    /// - Throws: `GainMapError.invalidMetadata` with the findings.
    public func encoded() throws(GainMapError) -> [UInt8] {
        guard let metadata else { throw .invalidMetadata([Finding(.gainmapTmapLength, message: "no metadata")]) }
        var probe = ToneMapImage(metadata: metadata)
        probe.version = version
        let findings = GainMapValidation.validate(probe)
        guard findings.isEmpty else { throw .invalidMetadata(findings) }
        return [version] + metadata.encodedStandardLayout()
    }
}

extension GainMapMetadata {
    /// The bare GainMapMetadata (no ToneMapImage version byte) in the standard layout: 61 or 141 bytes,
    /// as carried in JPEG APP2 (ISO 21496-1 C.2.2). Does not validate.
    /// - Returns: the bytes.
    public func encodedStandardLayout() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(encodedByteCount)
        func u16(_ v: UInt16) { out += [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: UInt32) {
            out += [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
        }
        func s32(_ v: Int32) { u32(UInt32(bitPattern: v)) }
        u16(minimumVersion)
        u16(writerVersion)
        out.append(flagsByte)
        u32(baseHdrHeadroom.numerator)
        u32(baseHdrHeadroom.denominator)
        u32(alternateHdrHeadroom.numerator)
        u32(alternateHdrHeadroom.denominator)
        for c in channels {
            s32(c.min.numerator)
            u32(c.min.denominator)
            s32(c.max.numerator)
            u32(c.max.denominator)
            u32(c.gamma.numerator)
            u32(c.gamma.denominator)
            s32(c.baseOffset.numerator)
            u32(c.baseOffset.denominator)
            s32(c.alternateOffset.numerator)
            u32(c.alternateOffset.denominator)
        }
        return out
    }
}

/// The one validation function for ISO 21496-1 metadata, used by the reader (`ToneMapImage.decode`) and the
/// writer (`ToneMapImage.encoded`), after libavif's `avifGainMapValidateMetadata` plus the framing rules.
public enum GainMapValidation {
    /// Checks a `tmap` body against ISO 21496-1 C.2.2 and ISO/IEC 23008-12 AMD 1 §6.6.2.4.
    ///
    /// Rules: version 0; minimum_version ≤ supported; writer_version ≥ minimum_version; exact length unless
    /// writer_version > supported (then trailing bytes are allowed); reserved flag bits clear (libultrahdr's
    /// 0x04/0x08 and the common-denominator form are readable but non-conformant); one or three channels;
    /// every denominator ≠ 0; gamma > 0; max ≥ min by Int64 cross-multiplication.
    /// - Parameter image: the parsed (or to-be-written) body.
    /// - Returns: findings sorted by offset, then code; empty when conformant.
    public static func validate(_ image: ToneMapImage) -> [Finding] {
        var out = ToneMapFindings(image: image)
        guard image.version == 0 else {
            out.add(
                .gainmapTmapVersionUnsupported,
                "ToneMapImage version \(image.version) is not 0; readers ignore the gain map", .version)
            return sorted(out.all)
        }
        guard let m = image.metadata else {
            out.all.append(
                Finding(
                    .gainmapTmapLength,
                    message:
                        "tmap body is \(image.byteCount) bytes, too short for its header (needs \(image.requiredByteCount))",
                    evidence: Evidence(offset: image.truncatedAt ?? image.byteCount)))
            return sorted(out.all)
        }
        checkVersionsAndFlags(m, &out)
        checkLength(m, &out)
        checkFractions(m, &out)
        return sorted(out.all)
    }

    /// minimum_version and writer_version, the reserved flag bits, the layout and the channel count.
    private static func checkVersionsAndFlags(_ m: GainMapMetadata, _ out: inout ToneMapFindings) {
        let image = out.image
        let supported = GainMapMetadata.supportedVersion
        if m.minimumVersion > supported {
            out.add(
                .gainmapTmapMinimumVersionUnsupported,
                "minimum_version \(m.minimumVersion) > supported \(supported); readers ignore the gain map",
                .minimumVersion)
        }
        if m.writerVersion < m.minimumVersion {
            out.add(
                .gainmapTmapWriterVersionBelowMinimum,
                "writer_version \(m.writerVersion) < minimum_version \(m.minimumVersion)", .writerVersion)
        }
        if m.reservedFlags != 0 {
            var parts: [String] = []
            if m.reservedFlags & 0x04 != 0 { parts.append("0x04 backwardDirection (libultrahdr draft)") }
            if m.reservedFlags & 0x08 != 0 { parts.append("0x08 useCommonDenominator (libultrahdr draft)") }
            let other = m.reservedFlags & ~0x0C
            if other != 0 { parts.append("reserved 0x" + String(other, radix: 16)) }
            out.add(
                .gainmapTmapNonstandardFlags, "flags set bits ISO 21496-1 reserves: " + parts.joined(separator: ", "),
                .flags)
        }
        if image.layout == .commonDenominator {
            out.add(
                .gainmapTmapCommonDenominator,
                "common-denominator layout (libultrahdr draft); ISO 21496-1 readers such as libavif misread it", .flags)
        }
        if m.channels.count != 1 && m.channels.count != 3, image.truncatedAt == nil {
            out.add(.gainmapTmapChannelCount, "\(m.channels.count) channels; ISO 21496-1 has 1 or 3", .flags)
        }
    }

    /// The body's length: truncated, or trailing bytes a reader of this writer_version does not expect.
    private static func checkLength(_ m: GainMapMetadata, _ out: inout ToneMapFindings) {
        let image = out.image
        let supported = GainMapMetadata.supportedVersion
        if let at = image.truncatedAt {
            out.all.append(
                Finding(
                    .gainmapTmapLength,
                    message:
                        "tmap body is \(image.byteCount) bytes; its \([142, 78].contains(image.requiredByteCount) ? "three" : "one")-channel \(image.layout.rawValue) layout needs \(image.requiredByteCount)",
                    evidence: Evidence(offset: at)))
        } else if image.trailingByteCount > 0 && m.minimumVersion <= supported {
            if m.writerVersion <= supported {
                out.all.append(
                    Finding(
                        .gainmapTmapExtraBytes,
                        message:
                            "\(image.trailingByteCount) bytes after the metadata with writer_version \(m.writerVersion); the body must end at \(image.requiredByteCount)",
                        evidence: Evidence(offset: image.requiredByteCount)))
            }
        }
    }

    /// Every fraction: denominators ≠ 0, gamma > 0, min ≤ max.
    private static func checkFractions(_ m: GainMapMetadata, _ out: inout ToneMapFindings) {
        let names = ["base", "alternate"]
        for (i, h) in [m.baseHdrHeadroom, m.alternateHdrHeadroom].enumerated() where h.denominator == 0 {
            out.add(
                .gainmapTmapDenominatorZero, "\(names[i])_hdr_headroom has denominator 0",
                i == 0 ? .baseHeadroomDenominator : .alternateHeadroomDenominator)
        }
        for (c, ch) in m.channels.enumerated() {
            let label = m.channels.count == 1 ? "" : " (channel \(c))"
            let dens: [(String, UInt32, ToneMapImage.Field)] = [
                ("gain_map_min", ch.min.denominator, .minDenominator),
                ("gain_map_max", ch.max.denominator, .maxDenominator),
                ("gamma", ch.gamma.denominator, .gammaDenominator),
                ("base_offset", ch.baseOffset.denominator, .baseOffsetDenominator),
                ("alternate_offset", ch.alternateOffset.denominator, .alternateOffsetDenominator),
            ]
            for (name, d, field) in dens where d == 0 {
                out.add(.gainmapTmapDenominatorZero, "\(name)\(label) has denominator 0", field, c)
            }
            if ch.gamma.numerator == 0 {
                out.add(
                    .gainmapTmapGammaZero, "gamma\(label) is 0/\(ch.gamma.denominator); it must be > 0",
                    .gammaNumerator, c)
            }
            if ch.min.denominator != 0 && ch.max.denominator != 0 {
                // min ≤ max  ⇔  min.n · max.d ≤ max.n · min.d (denominators positive); exact in Int64.
                let lhs = Int64(ch.min.numerator) * Int64(ch.max.denominator)
                let rhs = Int64(ch.max.numerator) * Int64(ch.min.denominator)
                if lhs > rhs {
                    out.add(
                        .gainmapTmapMinExceedsMax, "gain_map_min \(ch.min)\(label) exceeds gain_map_max \(ch.max)",
                        .minNumerator, c)
                }
            }
        }
    }

    static func sorted(_ f: [Finding]) -> [Finding] {
        f.sorted { ($0.offset ?? -1, $0.code) < ($1.offset ?? -1, $1.code) }
    }
}

/// The findings about one `tmap` body; `add` places each at its field's offset.
private struct ToneMapFindings {
    let image: ToneMapImage
    var all: [Finding] = []

    mutating func add(_ code: FindingCode, _ msg: String, _ field: ToneMapImage.Field, _ c: Int = 0) {
        all.append(Finding(code, message: msg, evidence: Evidence(offset: image.offset(of: field, channel: c))))
    }
}

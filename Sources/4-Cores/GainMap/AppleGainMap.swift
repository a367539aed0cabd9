import Foundation
import HEIF
import TIFFLayout

/// Apple's HEIC HDR gain map (iOS 14.1+): an 8-bit luminance auxiliary image with a URN, XMP on it, and
/// MakerNote tags. Layout and formulas: Apple "Applying Apple HDR effect to your photos"; libavif avifjpeg.c;
/// tev AppleMakerNote.cpp / GainMap.cpp.
public enum AppleGainMap {
    /// The `auxC` aux_type of Apple's gain-map auxiliary image.
    public static let auxiliaryURN = "urn:com:apple:photo:2020:aux:hdrgainmap"
    /// The XMP namespace of HDRGainMapVersion / HDRGainMapHeadroom.
    public static let xmpNamespace = "http://ns.apple.com/HDRGainMap/1.0/"
    /// Apple's XMP namespace for auxiliary pixel data (`apdi:AuxiliaryImageType`).
    public static let apdiNamespace = "http://ns.apple.com/pixeldatainfo/1.0/"
    /// HDRGainMapVersion written by iOS 17+ (bytes 0.2.0.0); 65536 (0.1.0.0) is the older value.
    public static let currentVersion: UInt32 = 131072

    /// Apple's linear headroom from MakerNote tags 0x0021 (HDRHeadroom) and 0x0030 (HDRGain).
    ///
    /// Formula from Apple's doc as implemented identically by libavif `avifGetExifAppleHeadroom` and tev:
    /// stops = maker33 < 1 ? (maker48 ≤ 0.01 ? −20·m48 + 1.8 : −0.101·m48 + 1.601)
    ///                     : (maker48 ≤ 0.01 ? −70·m48 + 3.0 : −0.303·m48 + 2.303);  headroom = 2^max(stops, 0).
    /// - Parameters:
    ///   - maker33: tag 0x0021 value.
    ///   - maker48: tag 0x0030 value.
    /// - Returns: the headroom in stops (log2), ≥ 0.
    public static func headroomStops(maker33: Double, maker48: Double) -> Double {
        let stops: Double
        if maker33 < 1.0 {
            stops = maker48 <= 0.01 ? -20.0 * maker48 + 1.8 : -0.101 * maker48 + 1.601
        } else {
            stops = maker48 <= 0.01 ? -70.0 * maker48 + 3.0 : -0.303 * maker48 + 2.303
        }
        return Swift.max(stops, 0)
    }

    /// ISO 21496-1 metadata approximating an Apple map of `headroom` (libavif's mapping,
    /// `avifJPEGParseGainMapXMPPropertiesAppleFormat`): min 0, max = log2(headroom), gamma 1, offsets 0,
    /// base headroom 0, alternate headroom log2(headroom). Exact only at g = 0 and g = 1.
    /// - Parameter headroom: the linear Apple headroom (HDRGainMapHeadroom), ≥ 1.
    /// - Returns: the metadata, or nil for a headroom < 1 or not finite.
    public static func isoMetadata(fromHeadroom headroom: Double) -> GainMapMetadata? {
        guard headroom.isFinite, headroom >= 1 else { return nil }
        let h = log2(headroom)
        guard let hu = UFraction(approximating: h), let hs = Fraction(approximating: h) else { return nil }
        return GainMapMetadata(
            baseHdrHeadroom: UFraction(0, 1), alternateHdrHeadroom: hu,
            channels: [
                GainMapChannel(
                    min: Fraction(0, 1), max: hs, gamma: UFraction(1, 1), baseOffset: Fraction(0, 1),
                    alternateOffset: Fraction(0, 1))
            ])
    }

    /// Apple's linear headroom from an ISO alternate headroom: 2^alternate_hdr_headroom.
    /// - Parameter log2Headroom: ISO `alternate_hdr_headroom` (log2).
    /// - Returns: the linear headroom.
    public static func linearHeadroom(fromISO log2Headroom: Double) -> Double { exp2(log2Headroom) }

    /// ISO log2 headroom from Apple's linear HDRGainMapHeadroom.
    /// - Parameter headroom: the linear headroom (> 0).
    /// - Returns: log2(headroom).
    public static func isoHeadroom(fromLinear headroom: Double) -> Double { log2(headroom) }
}

/// HDRGainMap values read from an XMP packet.
public struct AppleGainMapXMP: Sendable, Hashable {
    /// `HDRGainMap:HDRGainMapVersion` (e.g. 65536, 131072).
    public var version: UInt32?
    /// `HDRGainMap:HDRGainMapHeadroom`, linear (a ratio, not stops).
    public var headroom: Double?
    /// Whether the packet declares the HDRGainMap namespace at all.
    public var declaresNamespace: Bool
    /// `apdi:AuxiliaryImageType`, if present.
    public var auxiliaryImageType: String?

    /// Makes the values.
    public init(version: UInt32?, headroom: Double?, declaresNamespace: Bool, auxiliaryImageType: String? = nil) {
        self.version = version
        self.headroom = headroom
        self.declaresNamespace = declaresNamespace
        self.auxiliaryImageType = auxiliaryImageType
    }

    /// Scans an XMP packet for the HDRGainMap properties, attribute form (`HDRGainMap:HDRGainMapVersion="131072"`)
    /// or element form (`<HDRGainMap:HDRGainMapHeadroom>4.8</…>`), with whatever prefix the packet binds to
    /// `http://ns.apple.com/HDRGainMap/1.0/`. A tolerant byte scan, bounded by the packet length; no XML parser.
    /// - Parameter packet: the XMP bytes (UTF-8; a BOM or padding is fine).
    /// - Returns: what was found (fields nil when absent or unparsable).
    public static func parse(_ packet: [UInt8]) -> AppleGainMapXMP {
        let text = String(decoding: packet, as: UTF8.self)
        let gmPrefixes = XMPScan.prefixes(boundTo: AppleGainMap.xmpNamespace, in: text)
        let apdiPrefixes = XMPScan.prefixes(boundTo: AppleGainMap.apdiNamespace, in: text)
        let version = XMPScan.value(of: "HDRGainMapVersion", prefixes: gmPrefixes, in: text)
            .flatMap { v -> UInt32? in
                if let i = UInt32(v) { return i }
                if let d = Double(v), d >= 0, d <= Double(UInt32.max), d == d.rounded() { return UInt32(d) }
                return nil
            }
        let headroom = XMPScan.value(of: "HDRGainMapHeadroom", prefixes: gmPrefixes, in: text)
            .flatMap { Double($0) }.flatMap { $0.isFinite ? $0 : nil }
        let aux = XMPScan.value(of: "AuxiliaryImageType", prefixes: apdiPrefixes, in: text)
        return AppleGainMapXMP(
            version: version, headroom: headroom,
            declaresNamespace: !gmPrefixes.isEmpty || text.contains(AppleGainMap.xmpNamespace),
            auxiliaryImageType: aux)
    }

    /// An XMP packet for the gain-map item with HDRGainMapVersion and HDRGainMapHeadroom (and the apdi type),
    /// as iOS writes for the aux image.
    /// - Parameters:
    ///   - version: HDRGainMapVersion (default 131072).
    ///   - headroom: linear HDRGainMapHeadroom.
    /// - Returns: the packet bytes (UTF-8, with xpacket wrapper).
    public static func packet(version: UInt32 = AppleGainMap.currentVersion, headroom: Double) -> [UInt8] {
        let h = String(format: "%.6f", headroom)
        let s = """
            <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
            <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Readback">
             <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
              <rdf:Description rdf:about=""
                xmlns:HDRGainMap="\(AppleGainMap.xmpNamespace)"
                xmlns:apdi="\(AppleGainMap.apdiNamespace)"
               HDRGainMap:HDRGainMapVersion="\(version)"
               HDRGainMap:HDRGainMapHeadroom="\(h)"
               apdi:AuxiliaryImageType="\(AppleGainMap.auxiliaryURN)"/>
             </rdf:RDF>
            </x:xmpmeta>
            <?xpacket end="w"?>
            """
        return Array(s.utf8)
    }
}

/// A minimal, tolerant XMP scanner: namespace prefixes and one simple property's value. Linear in the text: every
/// search moves on (with the standard library's `firstRange(of:)`, not Foundation's `range(of:)`, which copies the
/// rest of the text on Linux each time), a prefix is looked for within `maxPrefix` characters, at most
/// `maxPrefixes` prefixes are tried, and a missing closing quote or bracket ends the scan (fuzzed packets of repeated
/// `xmlns:` and of repeated properties once took seconds).
enum XMPScan {
    /// The longest prefix (with the spaces around its `=`) a declaration is read with.
    static let maxPrefix = 80

    /// Prefixes bound to `uri` by `xmlns:PFX="uri"` (either quote).
    static func prefixes(boundTo uri: String, in text: String) -> [String] {
        var out: [String] = []
        var search = text[...]
        while let r = search.firstRange(of: "xmlns:") {
            let after = search[r.upperBound...]
            search = after
            guard let eq = after.prefix(maxPrefix).firstIndex(of: "=") else { continue }
            let prefix = String(after[..<eq]).trimmingCharacters(in: .whitespaces)
            var rest = after[after.index(after: eq)...].drop { $0 == " " }
            if let q = rest.first, q == "\"" || q == "'" {
                rest = rest.dropFirst()
                if let end = rest.firstIndex(of: q), rest[..<end] == uri[...], !prefix.isEmpty,
                    prefix.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." })
                {
                    out.append(prefix)
                }
            }
        }
        var seen = Set<String>()
        return Array(out.filter { seen.insert($0).inserted }.prefix(maxPrefixes))
    }

    /// At most this many prefixes are looked up (a packet binds a namespace once or twice).
    static let maxPrefixes = 8

    /// The value of `prefix:name` as an attribute (`prefix:name="v"`) or a simple element (`<prefix:name>v<`).
    static func value(of name: String, prefixes: [String], in text: String) -> String? {
        for p in prefixes {
            let q = "\(p):\(name)"
            var search = text[...]
            while let r = search.firstRange(of: q) {
                let before = r.lowerBound > text.startIndex ? text[text.index(before: r.lowerBound)] : " "
                var rest = search[r.upperBound...]
                search = rest
                if before == "<" {
                    guard rest.first == ">" else { continue }
                    rest = rest.dropFirst()
                    guard let end = rest.firstIndex(of: "<") else { break }
                    let v = rest[..<end].trimmingCharacters(in: .whitespacesAndNewlines)
                    if !v.isEmpty { return v }
                    // An rdf:Seq / rdf:Bag: the first rdf:li (see `values`).
                    if let first = listItems(after: rest, closing: "</\(q)>").first { return first }
                } else if before.isWhitespace {
                    rest = rest.drop { $0.isWhitespace }
                    guard rest.first == "=" else { continue }
                    rest = rest.dropFirst().drop { $0.isWhitespace }
                    guard let quote = rest.first, quote == "\"" || quote == "'" else { continue }
                    rest = rest.dropFirst()
                    guard let end = rest.firstIndex(of: quote) else { break }
                    return rest[..<end].trimmingCharacters(in: .whitespacesAndNewlines)
                }
            }
        }
        return nil
    }
}

extension XMPScan {
    /// All values of `prefix:name`: the `rdf:li` items of an `rdf:Seq`/`rdf:Bag`, else the single value.
    static func values(of name: String, prefixes: [String], in text: String) -> [String] {
        for p in prefixes {
            let open = "<\(p):\(name)>"
            if let r = text.firstRange(of: open) {
                let items = listItems(after: text[r.upperBound...], closing: "</\(p):\(name)>")
                if !items.isEmpty { return items }
            }
        }
        return value(of: name, prefixes: prefixes, in: text).map { [$0] } ?? []
    }

    /// The `rdf:li` texts between here and `closing` (at most 16).
    static func listItems(after s: Substring, closing: String) -> [String] {
        let end = s.firstRange(of: closing)?.lowerBound ?? s.endIndex
        var body = s[..<end]
        var out: [String] = []
        while out.count < 16, let r = body.firstRange(of: "<rdf:li") {
            guard let gt = body[r.upperBound...].firstIndex(of: ">") else { break }
            let after = body[body.index(after: gt)...]
            guard let close = after.firstRange(of: "</rdf:li>") else { break }
            out.append(after[..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines))
            body = after[close.upperBound...]
        }
        return out
    }
}

/// Apple MakerNote values relevant to the gain map: tags 0x0021 (HDRHeadroom) and 0x0030 (HDRGain).
public struct AppleMakerNote: Sendable, Hashable {
    /// Tag 0x0021 `HDRHeadroom` (Apple: MeteorHeadroom), SRATIONAL.
    public var hdrHeadroom: Double?
    /// Tag 0x0030 `HDRGain` (Apple: MeteorPlusGainMap), SRATIONAL.
    public var hdrGain: Double?

    /// Makes the values.
    public init(hdrHeadroom: Double?, hdrGain: Double?) {
        self.hdrHeadroom = hdrHeadroom
        self.hdrGain = hdrGain
    }

    /// The headroom in stops by Apple's formula, when both tags are present.
    public var headroomStops: Double? {
        guard let a = hdrHeadroom, let b = hdrGain else { return nil }
        return AppleGainMap.headroomStops(maker33: a, maker48: b)
    }

    /// The linear headroom (2^stops), when both tags are present.
    public var headroom: Double? { headroomStops.map { exp2($0) } }

    /// The MakerNote header: "Apple iOS\0" then 00 01 then "MM".
    public static let signature: [UInt8] = Array("Apple iOS".utf8) + [0]

    /// Parses an Apple MakerNote blob: 14-byte header, then a big-endian IFD at byte 14 whose value offsets
    /// are relative to the MakerNote start (libavif avifjpeg.c; tev AppleMakerNote.cpp). The IFD is read with the
    /// bounded TIFF walk (`TIFFLayout`) over the blob with its first 8 bytes read as a big-endian TIFF header pointing
    /// at byte 14: the offsets are relative to the same start, so every entry reads where Apple put it.
    /// - Parameter blob: the MakerNote value (Exif tag 0x927C).
    /// - Returns: the two tags (nil when absent), or nil when the blob is not an Apple iOS MakerNote.
    public static func parse(_ blob: [UInt8]) -> AppleMakerNote? {
        guard blob.count >= 16, Array(blob[0..<10]) == signature else { return nil }
        var note = AppleMakerNote(hdrHeadroom: nil, hdrGain: nil)
        var tiff = blob
        tiff.replaceSubrange(0..<8, with: [0x4D, 0x4D, 0, 42, 0, 0, 0, 14])
        guard let layout = try? TIFFLayout(Data(tiff)), let ifd = layout.directories.first else { return note }
        for e in ifd.entries where (e.tag == 0x0021 || e.tag == 0x0030) && e.count >= 1 {
            let v: Double?
            switch e.type {
            case 5, 10:  // RATIONAL / SRATIONAL: 8 bytes, always at an offset
                if let num = layout.u32(e.valueOffset), let den = layout.u32(e.valueOffset + 4), den != 0 {
                    v =
                        e.type == 10
                        ? Double(Int32(bitPattern: num)) / Double(Int32(bitPattern: den))
                        : Double(num) / Double(den)
                } else {
                    v = nil
                }
            case 11:  // FLOAT in the value field
                v = layout.u32(e.position + 8).map { Double(Float(bitPattern: $0)) }
            default:
                v = nil
            }
            if e.tag == 0x0021 { note.hdrHeadroom = v } else { note.hdrGain = v }
        }
        return note
    }

    /// Finds the MakerNote (tag 0x927C in the Exif sub-IFD) in an Exif blob and parses it as Apple's.
    ///
    /// Accepts a HEIF Exif item body (4-byte tiff_header_offset first), "Exif\0\0" + TIFF, or bare TIFF.
    /// - Parameter exif: the Exif bytes.
    /// - Returns: the Apple MakerNote values, or nil when there is no Apple MakerNote.
    public static func find(inExif exif: [UInt8]) -> AppleMakerNote? {
        guard let blob = TIFFScan.makerNote(inExif: exif) else { return nil }
        return parse(blob)
    }
}

/// Finds the MakerNote blob of an Exif blob (IFD0 → Exif IFD 0x8769 → 0x927C) with the bounded TIFF walk.
enum TIFFScan {
    static func makerNote(inExif exif: [UInt8]) -> [UInt8]? {
        guard let start = tiffStart(exif), let layout = try? TIFFLayout(Data(exif[start...]), followExif: true),
            let ifd0 = layout.directories.first, let exifAt = layout.integer(0x8769, in: ifd0),
            let exifIFD = layout.directories.first(where: { $0.offset == exifAt }),
            let mn = exifIFD[0x927C], mn.count > 0, let value = layout.valueBytes(mn)
        else { return nil }
        return [UInt8](value)
    }

    /// Where the TIFF header starts: after a HEIF Exif offset field, after "Exif\0\0", or at 0.
    static func tiffStart(_ b: [UInt8]) -> Int? {
        func isTIFF(_ o: Int) -> Bool {
            o >= 0 && o + 4 <= b.count
                && ((b[o] == 0x49 && b[o + 1] == 0x49 && b[o + 2] == 0x2A && b[o + 3] == 0)
                    || (b[o] == 0x4D && b[o + 1] == 0x4D && b[o + 2] == 0 && b[o + 3] == 0x2A))
        }
        if isTIFF(0) { return 0 }
        if b.count >= 8 {
            let off = Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3])
            if off < b.count - 4, isTIFF(4 + off) { return 4 + off }
        }
        if b.count >= 10, Array(b[0..<6]) == Array("Exif".utf8) + [0, 0], isTIFF(6) { return 6 }
        if b.count >= 14, isTIFF(10) { return 10 }  // 4-byte offset 0 + "Exif\0\0"
        return nil
    }
}

import MetadataEntries

/// Types and classifies raw entries using the tag tables.
public enum EntryDecoder {
    /// The result of decoding one source's entries.
    public struct Decoded: Sendable {
        public var fields: [Field]
        public var makerNote: MakerNoteInfo?
    }

    /// Decodes entries into fields and a MakerNote summary.
    /// - Parameters:
    ///   - entries: entries from one Exif/IPTC/XMP source.
    ///   - littleEndian: the Exif byte order (for UCS-2 text inside UNDEFINED values).
    /// - Returns: the fields (duplicates kept in order; MetadataSet keeps the first) and the MakerNote summary.
    public static func decode(_ entries: [RawEntry], littleEndian: Bool = true) -> Decoded {
        var fields: [Field] = []
        var makerTagCount = 0
        var makerTags: [String: MetadataValue] = [:]
        var makerPreviews: Set<String> = []
        var makerGroups: [String] = []
        var makerBlob: [UInt8]? = nil
        var iptcLists: [String: (Int, [String])] = [:]
        for e in entries {
            switch e.family {
            case .exif:
                if e.isMakerNote {
                    makerTagCount += 1
                    if !makerGroups.contains(e.group) { makerGroups.append(e.group) }
                    if isMakerNotePreview(group: e.group, name: e.tagName) {
                        makerPreviews.insert("\(e.group).\(e.tagName)")
                    } else if !isMakerNotePointer(group: e.group, name: e.tagName) {
                        makerTags["\(e.group).\(e.tagName)"] = decodeExifValue(
                            e, kind: .plain, littleEndian: littleEndian)
                    }
                    continue
                }
                if e.group == "Photo" && e.tag == 0x927C {
                    makerBlob = e.raw
                    continue
                }
                if let f = exifField(e, littleEndian: littleEndian) { fields.append(f) }
            case .iptc:
                let name = e.tagName
                let v = MetadataValue.normalizeText(String(decoding: e.raw, as: UTF8.self))
                if let (i, list) = iptcLists[name] {
                    iptcLists[name] = (i, list + [v])
                } else {
                    iptcLists[name] = (fields.count, [v])
                    fields.append(
                        Field(
                            key: FieldKey(group: "IPTC", name: name), tagID: e.tag, value: .text(v),
                            criticality: iptcCriticality(name), structural: false, inTable: false,
                            sourceKey: e.key))
                }
            case .xmp:
                if let f = xmpField(e) { fields.append(f) }
            }
        }
        for (_, (i, list)) in iptcLists where list.count > 1 {
            let f = fields[i]
            fields[i] = Field(
                key: f.key, tagID: f.tagID, value: .strings(list), criticality: f.criticality,
                structural: false, inTable: false, sourceKey: f.sourceKey)
        }
        var makerNote: MakerNoteInfo? = nil
        if makerTagCount > 0 || makerBlob != nil {
            let make = fields.first { $0.key == FieldKey(group: "IFD0", name: "Make") }?.value.description ?? ""
            var vendor = makerBlob.flatMap { MakerNoteInfo.vendor(fromHeader: $0) }
            var by: String? = vendor == nil ? nil : "header"
            if vendor == nil, let v = MakerNoteInfo.vendor(fromMake: make) {
                vendor = v
                by = "make"
            }
            if vendor == nil, let g = makerGroups.first {
                vendor = MakerNoteInfo.vendor(fromMake: g) ?? g
                by = "decoder"
            }
            makerNote = MakerNoteInfo(
                vendor: vendor, recognisedBy: by, decodedTagCount: makerTagCount,
                blob: makerTagCount == 0 ? makerBlob.map { BlobDigest(bytes: $0) } : nil, length: makerBlob?.count,
                tags: makerTags, previewTags: makerPreviews)
        }
        return Decoded(fields: fields, makerNote: makerNote)
    }

    /// MakerNote tags that point at or size other data (preview images, sub-IFDs): a rewrite that moves the data
    /// changes them without changing the content, so the comparison by content leaves them out.
    public static func isMakerNotePointer(group: String, name: String) -> Bool {
        if group.hasSuffix("Preview") { return true }
        let pointerSuffixes = ["Offset", "Offsets", "Start", "Length", "ByteCount", "ByteCounts", "Pointer", "IFD"]
        let blobPrefixes = ["PreviewImage", "ThumbnailImage", "JpgFromRaw"]
        return pointerSuffixes.contains { name.hasSuffix($0) } || blobPrefixes.contains { name.hasPrefix($0) }
    }

    /// MakerNote tags of the camera's embedded preview image: the preview sub-IFD (`NikonPreview.*`,
    /// `SamsungPreview.*`), its pointer (`Nikon3.Preview`), and the preview's offset, length and data tags
    /// (`Pentax.PreviewOffset`, `OlympusCs.PreviewImageStart`, `Olympus.ThumbnailImage`). The rule is by content: a
    /// tag that only locates or holds a preview image, whose pixels the output replaces with its own thumbnail.
    public static func isMakerNotePreview(group: String, name: String) -> Bool {
        if group.hasSuffix("Preview") || name == "Preview" || name == "PreviewIFD" { return true }
        if ["PreviewImage", "ThumbnailImage", "JpgFromRaw"].contains(where: { name.hasPrefix($0) }) { return true }
        let locating = ["Offset", "Start", "Length"]
        return (name.hasPrefix("Preview") || name.hasPrefix("Thumbnail")) && locating.contains { name.hasSuffix($0) }
    }

    static func iptcCriticality(_ name: String) -> Criticality {
        ["Keywords", "Caption", "Byline", "Copyright", "DateCreated", "TimeCreated", "Headline", "ObjectName"]
            .contains(name) ? .important : .informational
    }

    // MARK: Exif

    /// IFD pointers: structure, not content.
    static let pointerTags: Set<UInt16> = [0x8769, 0x8825, 0xA005]

    static func exifField(_ e: RawEntry, littleEndian: Bool) -> Field? {
        if pointerTags.contains(e.tag), e.group == "Image" || e.group == "Photo" || e.group == "PanasonicRaw" {
            return nil
        }
        if e.group == "MakerNote" { return nil }  // exiv2's Offset/ByteOrder bookkeeping for the MakerNote
        var group = ExifTables.exiftoolGroup(forExiv2Group: e.group)
        var def = group.flatMap { ExifTables.definition(group: $0, id: e.tag) }
        if e.group == "PanasonicRaw", def == nil { group = nil }
        if group == nil {
            // Raw-file IFDs outside the tables (SubIFDs, IFD2+, vendor raw IFDs): structure of the RAW container.
            group = otherGroupName(e.group)
            def = nil
        }
        let value = decodeExifValue(e, kind: def?.kind ?? .plain, littleEndian: littleEndian)
        let name = def?.name ?? e.tagName
        let structural =
            def?.structural
            ?? (!(["IFD0", "ExifIFD", "GPS", "InteropIFD"].contains(group!)) || ExifTables.isStructuralIFD0Tag(e.tag))
        return Field(
            key: FieldKey(group: group!, name: name), tagID: e.tag, value: value,
            criticality: def?.criticality ?? .informational, structural: structural, inTable: def != nil,
            sourceKey: e.key)
    }

    /// exiftool-like names for exiv2 groups outside the tables ("SubImage1" → "SubIFD", "Image2" → "IFD2").
    static func otherGroupName(_ g: String) -> String {
        if g.hasPrefix("SubImage"), let n = Int(g.dropFirst(8)) { return n <= 1 ? "SubIFD" : "SubIFD\(n - 1)" }
        if g.hasPrefix("Image"), let n = Int(g.dropFirst(5)) { return "IFD\(n)" }
        return g
    }

    /// Reads big-endian integers of `width` bytes.
    static func ints(_ b: [UInt8], width: Int, signed: Bool) -> [Int64] {
        guard width > 0 else { return [] }
        var out: [Int64] = []
        out.reserveCapacity(b.count / width)
        var i = 0
        while i + width <= b.count {
            var v: UInt64 = 0
            for j in 0..<width { v = v << 8 | UInt64(b[i + j]) }
            if signed && width < 8 {
                let shift = UInt64(64 - width * 8)
                out.append(Int64(bitPattern: v << shift) >> Int64(shift))
            } else {
                out.append(Int64(bitPattern: v))
            }
            i += width
        }
        return out
    }

    static func decodeExifValue(_ e: RawEntry, kind: TagKind, littleEndian: Bool) -> MetadataValue {
        let b = e.raw
        switch kind {
        case .dateTime:
            let s = MetadataValue.normalizeText(String(decoding: b, as: UTF8.self))
            return DateTimeValue(parsing: s).map { .dateTime($0) } ?? .text(s)
        case .version:
            return .text(MetadataValue.normalizeText(String(decoding: b, as: UTF8.self)))
        case .encodedText:
            return .text(encodedText(b, littleEndian: littleEndian))
        case .ucs2:
            var units: [UInt16] = []
            var i = 0
            while i + 1 < b.count {
                units.append(UInt16(b[i]) | UInt16(b[i + 1]) << 8)
                i += 2
            }
            return .text(MetadataValue.normalizeText(String(decoding: units, as: UTF16.self)))
        case .byteList:
            if e.typeID == 1 || e.typeID == 7 || e.typeID == 6 { return .integers(b.map { Int64($0) }) }
        case .plain, .gpsCoordinate, .number:
            break
        }
        switch e.typeID {
        case 1: return .integers(ints(b, width: 1, signed: false))
        case 6: return .integers(ints(b, width: 1, signed: true))
        case 3: return .integers(ints(b, width: 2, signed: false))
        case 8: return .integers(ints(b, width: 2, signed: true))
        case 4, 13: return .integers(ints(b, width: 4, signed: false))
        case 9: return .integers(ints(b, width: 4, signed: true))
        case 16, 18: return .integers(ints(b, width: 8, signed: false))
        case 17: return .integers(ints(b, width: 8, signed: true))
        case 5, 10:
            let v = ints(b, width: 4, signed: e.typeID == 10)
            var r: [Rational] = []
            var i = 0
            while i + 1 < v.count {
                r.append(Rational(v[i], v[i + 1]))
                i += 2
            }
            return .rationals(r)
        case 11:
            return .reals(
                ints(b, width: 4, signed: false).map { Double(Float(bitPattern: UInt32(truncatingIfNeeded: $0))) })
        case 12:
            return .reals(ints(b, width: 8, signed: false).map { Double(bitPattern: UInt64(bitPattern: $0)) })
        case 2:
            return .text(MetadataValue.normalizeText(String(decoding: b, as: UTF8.self)))
        default:
            // UNDEFINED (7) and anything unknown: short values as byte lists, long ones as a digest.
            if b.count <= 4 { return .integers(b.map { Int64($0) }) }
            return .binary(BlobDigest(bytes: b))
        }
    }

    /// UNDEFINED text with an 8-byte character-code prefix (CIPA DC-008 Table 9: ASCII, JIS, UNICODE, undefined).
    static func encodedText(_ b: [UInt8], littleEndian: Bool) -> String {
        guard b.count >= 8 else { return MetadataValue.normalizeText(String(decoding: b, as: UTF8.self)) }
        let code = Array(b[0..<8])
        let body = Array(b[8...])
        if code == Array("UNICODE\0".utf8) {
            var units: [UInt16] = []
            var i = 0
            // UCS-2 in the Exif byte order; a BOM wins.
            var le = littleEndian
            if body.count >= 2, body[0] == 0xFF, body[1] == 0xFE {
                le = true
                i = 2
            }
            if body.count >= 2, body[0] == 0xFE, body[1] == 0xFF {
                le = false
                i = 2
            }
            while i + 1 < body.count {
                units.append(
                    le ? UInt16(body[i]) | UInt16(body[i + 1]) << 8 : UInt16(body[i]) << 8 | UInt16(body[i + 1]))
                i += 2
            }
            return MetadataValue.normalizeText(String(decoding: units, as: UTF16.self))
        }
        let text = String(decoding: body, as: UTF8.self)
        return MetadataValue.normalizeText(text).trimmingLeadingSpaces()
    }

    // MARK: XMP

    static func xmpField(_ e: RawEntry) -> Field? {
        // key "Xmp.<prefix>.<path>"
        let parts = e.key.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let prefix = String(parts[1])
        let path = String(parts[2])
        let def = XMPTables.definition(prefix: prefix, property: path)
        let items =
            e.raw.isEmpty
            ? []
            : String(decoding: e.raw, as: UTF8.self)
                .split(separator: "\u{1E}", omittingEmptySubsequences: false).map(String.init)
        let value: MetadataValue
        switch e.typeID {
        case 0x10009:  // langAlt: x-default first, language tags dropped
            var pairs = items.map { item -> (String, String) in
                let p = item.split(separator: "\u{1F}", maxSplits: 1, omittingEmptySubsequences: false)
                return (String(p[0]), p.count > 1 ? String(p[1]) : "")
            }
            pairs.sort { ($0.0 == "x-default" ? 0 : 1, $0.0) < ($1.0 == "x-default" ? 0 : 1, $1.0) }
            let texts = pairs.map { MetadataValue.normalizeText($0.1) }
            value = texts.count == 1 ? .text(texts[0]) : .strings(texts)
        case 0x10006, 0x10007, 0x10008:  // alt, bag, seq
            let texts = items.map { MetadataValue.normalizeText($0) }
            value = texts.count == 1 ? .text(texts[0]) : .strings(texts)
        default:
            value = xmpScalar(items.first ?? e.text, kind: def?.kind ?? .plain)
        }
        return Field(
            key: FieldKey(group: "XMP-\(prefix)", name: def?.name ?? XMPTables.exiftoolName(path)), tagID: nil,
            value: value, criticality: def?.criticality ?? .informational, structural: def?.structural ?? false,
            inTable: def != nil, sourceKey: e.key)
    }

    /// Types an XMP text value by the table's kind.
    public static func xmpScalar(_ raw: String, kind: TagKind) -> MetadataValue {
        let s = MetadataValue.normalizeText(raw).trimmingLeadingSpaces()
        switch kind {
        case .number:
            // One number or several separated by spaces: integers, fractions "n/d" or reals.
            let tokens = s.split(separator: " ")
            guard !tokens.isEmpty else { return .text(s) }
            let ints = tokens.compactMap { Int64($0) }
            if ints.count == tokens.count { return .integers(ints) }
            let fracs = tokens.compactMap { t -> Rational? in
                let p = t.split(separator: "/")
                if p.count == 2, let n = Int64(p[0]), let d = Int64(p[1]) { return Rational(n, d) }
                return Int64(t).map { Rational($0, 1) }
            }
            if fracs.count == tokens.count { return .rationals(fracs) }
            let reals = tokens.compactMap { Double($0) }
            if reals.count == tokens.count { return .reals(reals) }
            return .text(s)
        case .dateTime:
            return DateTimeValue(parsing: s).map { .dateTime($0) } ?? .text(s)
        case .gpsCoordinate:
            return xmpCoordinate(s).map { .reals([$0]) } ?? .text(s)
        default:
            return .text(s)
        }
    }

    /// Signed decimal degrees from XMP's "DDD,MM,SSk" or "DDD,MM.mmk" (Exif for XMP §4, GPSCoordinate).
    public static func xmpCoordinate(_ s: String) -> Double? {
        guard let last = s.last, "NSEWnsew".contains(last) else { return Double(s) }
        let body = s.dropLast().split(separator: ",").map { Double($0) }
        guard !body.isEmpty, body.allSatisfy({ $0 != nil }) else { return nil }
        let n = body.map { $0! }
        let deg = n[0] + (n.count > 1 ? n[1] / 60 : 0) + (n.count > 2 ? n[2] / 3600 : 0)
        return "SWsw".contains(last) ? -deg : deg
    }
}

extension String {
    func trimmingLeadingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " { s = s.dropFirst() }
        return String(s)
    }
}

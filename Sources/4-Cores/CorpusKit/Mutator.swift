import Digest
import Findings
import Foundation
import HEIF

/// One mutation of a good HEIC: the silent failure it simulates and the finding code the auditor must raise.
public struct Mutation: Sendable, Equatable {
    /// The finding code (see `Corpus.findingCodes`).
    public var code: String
    /// What was changed, one line.
    public var note: String
    /// The mutated file; nil for `output.missing` (the point is that there is no file) and for skipped mutations.
    public var bytes: [UInt8]?
    /// False when the input lacks what this mutation changes (e.g. no gain map to drop).
    public var applied: Bool
}

/// A written mutation (`Mutator.writeAll`).
public struct WrittenMutation: Sendable, Equatable {
    public var code: String
    /// File name inside the output folder; nil when nothing was written.
    public var file: String?
    public var note: String
    public var sha256: String?
}

/// Produces, from a good HEIC, each silent failure the auditor must catch, each labelled with its finding code.
///
/// Container edits go through `HEIFBuilder(file:)` (the rest of the file is rebuilt unchanged); Exif edits parse the
/// Exif TIFF blob with `TIFFReader`, change entries and re-serialise with `TIFFWriter` in the blob's byte order.
public enum Mutator {
    /// Every finding code in the order mutations are produced.
    public static let codes: [String] = Corpus.findingCodes.map(\.code)

    /// All mutations of `good`.
    /// - Parameter good: the bytes of a HEIC with a primary image, Exif (with GPS and DateTimeOriginal), and
    ///   ideally a gain map in both forms (tmap + Apple auxiliary).
    /// - Returns: one `Mutation` per code, in `codes` order.
    public static func mutations(of good: [UInt8]) -> [Mutation] {
        let file = HEIFFile(bytes: good)
        return codes.map { mutate(file, code: $0) }
    }

    /// One mutation.
    /// - Parameters:
    ///   - file: the parsed good file.
    ///   - code: a finding code from `codes`.
    /// - Returns: the mutation (not applied when the input lacks what it needs).
    public static func mutate(_ file: HEIFFile, code: String) -> Mutation {
        guard let primary = file.primaryItemID else {
            return Mutation(code: code, note: "the input has no primary item", bytes: nil, applied: false)
        }
        let input = MutationInput(file: file, code: code, primary: primary)
        switch code {
        case FindingCode.gainmapMissing.rawValue: return input.removeGainMaps()
        case FindingCode.gainmapAppleXmpMissing.rawValue: return input.removeAppleGainMapXMP()
        case FindingCode.gainmapTmapColrMissing.rawValue: return input.removeToneMapColour()
        case FindingCode.gainmapDataMissing.rawValue: return input.emptyGainMapData()
        case FindingCode.metadataLost.rawValue, FindingCode.metadataChanged.rawValue: return input.editExif()
        case FindingCode.orientationDoubleRotation.rawValue: return input.rotateTwice()
        case FindingCode.signallingNclxMissing.rawValue: return input.removeNCLX()
        case FindingCode.containerTruncated.rawValue:
            guard let m = file.mdat.first, m.count > 16 else { return input.skip("the input has no mdat") }
            let cut = m.lowerBound + m.count / 2
            return Mutation(
                code: code, note: "cut the file to \(cut) bytes, half-way through mdat",
                bytes: Array(file.bytes[..<cut]), applied: true)
        case FindingCode.outputMissing.rawValue:
            return Mutation(code: code, note: "no output file is written for the source", bytes: nil, applied: true)
        default:
            return input.skip("unknown mutation code")
        }
    }

    /// Writes every applied mutation as `<code>.heic` into `folder`, plus `MUTATIONS` (TSV: file, code, sha256,
    /// note).
    /// - Returns: what was written or skipped, in `codes` order.
    /// - Throws: file-system errors.
    @discardableResult
    public static func writeAll(from good: [UInt8], into folder: URL) throws -> [WrittenMutation] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var out: [WrittenMutation] = []
        for m in mutations(of: good) {
            if let bytes = m.bytes {
                let name = "\(m.code).heic"
                try Data(bytes).write(to: folder.appendingPathComponent(name))
                out.append(WrittenMutation(code: m.code, file: name, note: m.note, sha256: SHA256.hex(bytes)))
            } else {
                out.append(
                    WrittenMutation(
                        code: m.code, file: nil, note: m.applied ? m.note : "skipped: \(m.note)", sha256: nil))
            }
        }
        var lines = ["file\tcode\tsha256\tnote"]
        for w in out { lines.append([w.file ?? "-", w.code, w.sha256 ?? "-", w.note].joined(separator: "\t")) }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: folder.appendingPathComponent("MUTATIONS"))
        return out
    }
}

/// Edits of an Exif TIFF blob (CIPA DC-008 §4.6), written back in the blob's byte order.
///
/// The blob is re-laid out, so a MakerNote whose inner offsets count from the TIFF header (Canon, Nikon type 1)
/// would point to the wrong bytes afterwards; MakerNotes with self-relative offsets (Apple, Nikon type 3, ours)
/// survive. The mutations only need the fields they change.
public enum ExifEdit {
    /// Where the TIFF header starts in a HEIF Exif item payload: after the 4-byte exif_tiff_header_offset and what
    /// it skips (ISO/IEC 23008-12 Annex A.2.1); nil when no TIFF header is there.
    public static func tiffStart(_ p: [UInt8]) -> Int? {
        guard p.count >= 12 else { return nil }
        let off = Int(p[0]) << 24 | Int(p[1]) << 16 | Int(p[2]) << 8 | Int(p[3])
        let at = 4 + off
        guard off >= 0, at + 8 <= p.count, TIFFReader(bytes: Array(p[at..<(at + 8)])) != nil else { return nil }
        return at
    }

    /// The blob without its GPS IFD (tag 0x8825 removed from IFD0); nil when it has none or is not a TIFF.
    public static func removeGPS(_ tiff: [UInt8]) -> [UInt8]? {
        guard let r = TIFFReader(bytes: tiff), var ifd0 = r.readTree(), ifd0[34853] != nil else { return nil }
        ifd0[34853] = nil
        return TIFFWriter.serialize(ifd0, order: r.order)
    }

    /// The blob with DateTimeOriginal (0x9003 in the Exif IFD) set to `value`; nil when it has none.
    public static func setDateTimeOriginal(_ tiff: [UInt8], to value: String) -> [UInt8]? {
        guard let r = TIFFReader(bytes: tiff), var ifd0 = r.readTree(), case .ifd(var exif)? = ifd0[34665],
            exif[36867] != nil
        else { return nil }
        exif[36867] = .ascii(value)
        ifd0[34665] = .ifd(exif)
        return TIFFWriter.serialize(ifd0, order: r.order)
    }

    /// The blob with IFD0 Orientation (0x0112) set to `value`.
    public static func setOrientation(_ tiff: [UInt8], to value: UInt16) -> [UInt8]? {
        guard let r = TIFFReader(bytes: tiff), var ifd0 = r.readTree() else { return nil }
        ifd0[274] = .shorts([value])
        return TIFFWriter.serialize(ifd0, order: r.order)
    }
}

/// What each mutation starts from: the good file, its primary item, its gain maps and `tmap` items.
private struct MutationInput {
    let file: HEIFFile
    let code: String
    let primary: UInt32
    let tmaps: [UInt32]
    let gainMaps: Set<UInt32>

    init(file: HEIFFile, code: String, primary: UInt32) {
        self.file = file
        self.code = code
        self.primary = primary
        tmaps = file.toneMapItems
        gainMaps = Set(
            tmaps.compactMap { file.toneMapInputs(of: $0)?.gainMap }
                + [file.appleGainMap(of: primary)].compactMap { $0 })
    }

    /// Not applied: the input lacks what this mutation changes.
    func skip(_ why: String) -> Mutation { Mutation(code: code, note: why, bytes: nil, applied: false) }

    /// Applied: the builder's file.
    func done(_ b: HEIFBuilder, _ note: String) -> Mutation {
        Mutation(code: code, note: note, bytes: b.build(), applied: true)
    }

    /// Removes every gain map (items, their metadata, tmap items, the `altr` group and the tmap brand).
    func removeGainMaps() -> Mutation {
        var b = HEIFBuilder(file: file)
        guard !gainMaps.isEmpty || !tmaps.isEmpty else { return skip("the input has no gain map") }
        for g in gainMaps.sorted() {
            for m in file.metadataItems(describing: g) { b.removeItem(m) }
            b.removeItem(g)
        }
        for t in tmaps { b.removeItem(t) }
        for g in b.groups where g.type == "altr" && g.entities.count < 2 { b.removeGroup(id: g.id) }
        b.brands.compatible.removeAll { $0 == "tmap" }
        return done(
            b, "removed the gain map items \(gainMaps.sorted()), tmap items \(tmaps), their XMP and altr group")
    }

    /// Removes the XMP that describes the Apple gain map.
    func removeAppleGainMapXMP() -> Mutation {
        var b = HEIFBuilder(file: file)
        guard let g = file.appleGainMap(of: primary) else {
            return skip("the input has no Apple hdrgainmap auxiliary image")
        }
        let xmps = file.metadataItems(describing: g).filter { file.item($0)?.isXMP == true }
        guard !xmps.isEmpty else { return skip("the Apple gain map has no XMP to remove") }
        for x in xmps { b.removeItem(x) }
        return done(b, "removed the XMP item(s) \(xmps) describing the Apple gain map \(g)")
    }

    /// Removes the `colr` properties of the `tmap` item.
    func removeToneMapColour() -> Mutation {
        var b = HEIFBuilder(file: file)
        guard let t = tmaps.first else { return skip("the input has no tmap item") }
        guard file.properties(of: t).contains(where: { $0.property.type == "colr" }) else {
            return skip("the tmap item has no colr to remove")
        }
        b.removeProperties("colr", of: t)
        return done(b, "removed the colr properties of tmap item \(t)")
    }

    /// Empties the first gain map's data.
    func emptyGainMapData() -> Mutation {
        var b = HEIFBuilder(file: file)
        guard let g = gainMaps.sorted().first else { return skip("the input has no gain map") }
        b.replacePayload(of: g, with: [])
        return done(b, "emptied the iloc entry of gain map item \(g) (no bytes)")
    }

    /// Removes the GPS IFD (`metadata.lost`) or changes DateTimeOriginal (`metadata.changed`) in the primary's Exif.
    func editExif() -> Mutation {
        var b = HEIFBuilder(file: file)
        guard let exif = file.metadataItems(describing: primary).first(where: { file.item($0)?.isExif == true }),
            let payload = file.payload(of: exif), let start = ExifEdit.tiffStart(payload)
        else { return skip("the primary has no Exif item") }
        let tiff = Array(payload[start...])
        let edited: [UInt8]?
        let note: String
        if code == FindingCode.metadataLost.rawValue {
            edited = ExifEdit.removeGPS(tiff)
            note = "removed the GPS IFD from the Exif of item \(exif)"
        } else {
            edited = ExifEdit.setDateTimeOriginal(tiff, to: "2001:02:03 04:05:06")
            note = "changed Exif DateTimeOriginal of item \(exif) to 2001:02:03 04:05:06"
        }
        guard let e = edited else {
            return skip("the Exif has no \(code == FindingCode.metadataLost.rawValue ? "GPS" : "DateTimeOriginal")")
        }
        b.replacePayload(of: exif, with: Array(payload[..<start]) + e)
        return done(b, note)
    }

    /// Rotates the primary twice: an `irot` and an Exif Orientation that each turn it 90° clockwise.
    func rotateTwice() -> Mutation {
        var b = HEIFBuilder(file: file)
        guard let exif = file.metadataItems(describing: primary).first(where: { file.item($0)?.isExif == true }),
            let payload = file.payload(of: exif), let start = ExifEdit.tiffStart(payload),
            let e = ExifEdit.setOrientation(Array(payload[start...]), to: 6)
        else { return skip("the primary has no Exif item with IFD0") }
        b.replacePayload(of: exif, with: Array(payload[..<start]) + e)
        b.removeProperties("irot", of: primary)
        // irot angle 3 = 270° anti-clockwise = 90° clockwise, what Exif 6 asks for (ISO/IEC 23008-12 §6.5.10).
        if let i = b.entries.firstIndex(where: { $0.item.id == primary }) {
            let props =
                b.entries[i].properties.map { ($0.property, essential: $0.essential) } + [
                    (.irot(quarterTurns: 3), essential: true)
                ]
            b.setProperties(of: primary, props)
        }
        return done(b, "added irot 90° clockwise to the primary \(primary) and set Exif Orientation 6")
    }

    /// Removes the primary's nclx `colr`.
    func removeNCLX() -> Mutation {
        var b = HEIFBuilder(file: file)
        let hasNCLX = file.properties(of: primary).contains {
            if case .colrNCLX = $0.property { return true } else { return false }
        }
        guard hasNCLX else { return skip("the primary has no nclx colr") }
        guard let i = b.entries.firstIndex(where: { $0.item.id == primary }) else {
            return skip("no primary entry")
        }
        let props = b.entries[i].properties.filter {
            if case .colrNCLX = $0.property { return false } else { return true }
        }
        b.setProperties(of: primary, props.map { ($0.property, essential: $0.essential) })
        return done(b, "removed the nclx colr of the primary \(primary)")
    }
}

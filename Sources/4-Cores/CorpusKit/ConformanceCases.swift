import Digest
import Findings
import Foundation
import HEIF

/// A file the auditor once misjudged, rebuilt from `heic/good.heic` (or a 10-bit conversion): what it is and the
/// verdict `readback audit F F` must give.
public struct ConformanceCase: Sendable, Equatable {
    /// Path relative to the corpus folder (`heic/conformance/…`).
    public var file: String
    public var recipe: String
    public var exercises: String
    /// Codes the self-audit must raise (none of them an error).
    public var expectedCodes: [String]
    /// The Exif orientation value `HEIFFile.orientation(of:)` must give the primary.
    public var orientation: Int
    public var bytes: [UInt8]

    /// The MANIFEST's expected_audit column.
    public var expectedAudit: String {
        "no error" + (expectedCodes.isEmpty ? "; clean" : "; " + expectedCodes.joined(separator: ", "))
            + (orientation == 1 ? "" : "; orientation \(orientation)")
    }
}

extension Corpus {
    /// Writes the conformance cases into `folder/heic/conformance/` (replacing what was there).
    /// - Returns: their manifest rows.
    static func writeConformanceCases(
        good: [UInt8], tenBit: [UInt8], into folder: URL, progress: (String) -> Void
    ) throws -> [ManifestEntry] {
        let dir = folder.appendingPathComponent(ConformanceCases.folder)
        if FileManager.default.fileExists(atPath: dir.path) { try FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return try ConformanceCases.make(good: good, tenBit: tenBit).map { c in
            try Data(c.bytes).write(to: folder.appendingPathComponent(c.file))
            progress(c.file)
            return ManifestEntry(
                file: c.file, recipe: c.recipe, seed: 0, exercises: c.exercises, expectedAudit: c.expectedAudit,
                sha256: SHA256.hex(c.bytes))
        }
    }
}

/// The conformance cases: each false finding or misleading message once seen on the HEIF conformance files,
/// recreated from Readback's own good file so the corpus carries no third-party bytes.
public enum ConformanceCases {
    /// The folder inside the corpus.
    public static let folder = "heic/conformance"

    /// Builds every case.
    /// - Parameters:
    ///   - good: `heic/good.heic` (8-bit, gain map, Exif, XMP).
    ///   - tenBit: a 10-bit SDR conversion (no gain map) of the same chart, for the 10-bit-without-colr case.
    /// - Returns: the cases, sorted by file.
    public static func make(good: [UInt8], tenBit: [UInt8]) -> [ConformanceCase] {
        let goodFile = HEIFFile(bytes: good)
        let sdr = HEIFFile(bytes: Mutator.mutate(goodFile, code: FindingCode.gainmapMissing.rawValue).bytes ?? good)
        guard let primary = sdr.primaryItemID, let w = sdr.imageSize(of: primary) else { return [] }
        var out: [ConformanceCase] = []
        func add(_ name: String, _ recipe: String, _ exercises: String, _ codes: [String], _ o: Int, _ b: [UInt8]) {
            out.append(
                ConformanceCase(
                    file: "\(folder)/\(name).heic", recipe: recipe, exercises: exercises, expectedCodes: codes,
                    orientation: o, bytes: b))
        }

        // 10 bits without colr: not HDR (no PQ/HLG, no clli/mdcv), and neither HEIF nor MIAF requires a colr.
        var ten = HEIFBuilder(file: HEIFFile(bytes: tenBit))
        if let p = HEIFFile(bytes: tenBit).primaryItemID { ten.removeProperties("colr", of: p) }
        add(
            "ten-bit-no-colr", "10-bit SDR conversion of \(Corpus.goodHEICSource), primary colr removed",
            "a 10-bit primary without colr is no signalling error", [], 1, ten.build())

        // Properties of an entity group: ipma may name a grpl group id (HEIF §9.3).
        var grouped = HEIFBuilder(file: goodFile)
        if let altr = goodFile.groups.first(where: { $0.type == "altr" }) {
            grouped.setGroupProperties(of: altr.id, [(udes("alternatives"), false)])
        }
        add(
            "group-properties", "good.heic with a udes property associated with its altr group in ipma",
            "ipma entries for an entity group are no unknown items", [], 1, grouped.build())

        add(
            "sequence-only", "an image sequence: ftyp msf1, moov with one pict track of hvc1 samples, no meta",
            "a sequence-only file is named as such, never a container error",
            [FindingCode.decodeUnsupported.rawValue], 1, sequenceOnly(hvcC: hvcCBytes(sdr, primary)))

        // iden primaries (libheif 1.15 decodes these; where it cannot, the audit names the feature instead of
        // repeating its "no compressed data"); the orientation composes through the chain.
        let quarter = Property.irot(quarterTurns: 1)
        var iden = HEIFBuilder(file: sdr)
        // An iden's ispe is its input's size; its irot turns what it shows.
        let one = identity(&iden, over: primary, size: (w.width, w.height), quarter)
        retarget(&iden, from: primary, to: one)
        add(
            "iden-primary", "good.heic without gain map, its primary behind an iden item with irot 90°",
            "an iden primary: decoded, shown turned 90° anticlockwise (Exif 8)", [], 8, iden.build())

        var chain = HEIFBuilder(file: sdr)
        let first = identity(&chain, over: primary, size: (w.width, w.height), quarter)
        let second = identity(&chain, over: first, size: (w.height, w.width), quarter)
        retarget(&chain, from: primary, to: second)
        add(
            "iden-chain-rotations", "good.heic without gain map, primary → iden (irot 90°) → iden (irot 90°)",
            "chained derivations compose: two quarter turns are 180° (Exif 3); an iden of an iden breaks MIAF §7.3.9",
            [FindingCode.conformanceIdenChain.rawValue], 3, chain.build())

        // An AVC-coded primary: named, not "'pitm' references a non-existing image".
        var avc = HEIFBuilder(file: sdr)
        avc.updateItem(primary) { $0.type = "avc1" }
        let avcC = Property.unknown(type: "avcC", body: [1, 0x42, 0xC0, 0x1E, 0xFF, 0xE0, 0x00])
        avc.setProperties(
            of: primary,
            [(avcC, true)]
                + sdr.properties(of: primary).filter { $0.property.type != "hvcC" }.map {
                    ($0.property, essential: $0.essential)
                })
        add(
            "avc-primary", "good.heic without gain map, its primary item typed avc1 with an avcC",
            "an AVC-coded primary is named as unsupported", [FindingCode.decodeUnsupported.rawValue], 1, avc.build())

        // An essential property nobody here understands: the item's pixels are not judged.
        var essential = HEIFBuilder(file: sdr)
        essential.setProperties(
            of: primary,
            sdr.properties(of: primary).map { ($0.property, essential: $0.essential) } + [
                (.unknown(type: "pred", body: [0, 0, 0, 0, 1]), true)
            ])
        add(
            "unknown-essential", "good.heic without gain map, an essential 'pred' property on its primary",
            "an essential property Readback does not understand is named; the item is not judged by its pixels",
            [FindingCode.containerUnsupportedEssential.rawValue], 1, essential.build())
        return out.sorted { $0.file < $1.file }
    }

    /// A user description property (`udes`, ISO/IEC 23008-12 §6.5.20): language, name, description, tags.
    static func udes(_ name: String) -> Property {
        .unknown(type: "udes", body: [0, 0, 0, 0] + Array("en\0\(name)\0\0\0".utf8))
    }

    /// The hvcC box bytes of an item (header included), or an empty record.
    static func hvcCBytes(_ f: HEIFFile, _ id: UInt32) -> [UInt8] {
        for a in f.properties(of: id) where a.property.type == "hvcC" {
            return a.property.encoded()
        }
        return []
    }

    /// An `iden` item over `input` with `transform`, its `ispe` the input's size and the `pixi` a displayable image
    /// needs (MIAF §7.3.6.6; the corpus's good.heic is 8-bit); returns its id.
    static func identity(
        _ b: inout HEIFBuilder, over input: UInt32, size: (UInt32, UInt32), _ transform: Property,
        pixi: Property = .pixi(bitsPerChannel: [8, 8, 8])
    ) -> UInt32 {
        b.updateItem(input) { $0.hidden = true }
        return b.addDerivedImage(
            type: "iden", payload: [], inputs: [input],
            properties: [(.ispe(width: size.0, height: size.1), false), (pixi, false), (transform, true)],
            storage: .mdat)
    }

    /// Makes `to` the primary and moves the thumbnail and metadata references of `from` to it.
    static func retarget(_ b: inout HEIFBuilder, from: UInt32, to: UInt32) {
        b.setPrimary(to)
        b.setReferences(
            b.references.map { r in
                guard r.type == "thmb" || r.type == "cdsc" else { return r }
                var r = r
                r.to = r.to.map { $0 == from ? to : $0 }
                return r
            })
    }

    /// A sequence-only HEIF (ISO/IEC 23008-12 §7): ftyp msf1, a moov with one `pict` track whose sample entry is
    /// `hvc1` with `hvcC`; no samples, no meta.
    static func sequenceOnly(hvcC: [UInt8]) -> [UInt8] {
        func u32(_ v: UInt32) -> [UInt8] {
            [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        }
        func box(_ t: FourCC, _ body: [UInt8]) -> [UInt8] { u32(UInt32(8 + body.count)) + t.bytes + body }
        func full(_ t: FourCC, _ v: UInt8, _ f: UInt32, _ body: [UInt8]) -> [UInt8] {
            box(t, [v, UInt8(f >> 16 & 0xFF), UInt8(f >> 8 & 0xFF), UInt8(f & 0xFF)] + body)
        }
        func zeros(_ n: Int) -> [UInt8] { [UInt8](repeating: 0, count: n) }
        let matrix: [UInt32] = [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x4000_0000]
        let identity = matrix.flatMap { u32($0) }
        let brands: [FourCC] = ["msf1", "iso8", "heic"]
        let ftyp = box("ftyp", FourCC("msf1").bytes + u32(0) + brands.flatMap(\.bytes))
        // mvhd v0: times, timescale, duration, rate, volume, reserved, matrix, pre_defined, next_track_ID.
        let mvhd = full(
            "mvhd", 0, 0,
            u32(0) + u32(0) + u32(1000) + u32(0) + u32(0x10000) + [1, 0] + zeros(10) + identity
                + zeros(24) + u32(2))
        // tkhd v0 (enabled, in movie): times, track_ID, reserved, duration, reserved, layer/group/volume/reserved,
        // matrix, width and height (16.16).
        let tkhd = full(
            "tkhd", 0, 3,
            u32(0) + u32(0) + u32(1) + u32(0) + u32(0) + zeros(8) + zeros(8) + identity
                + u32(256 << 16) + u32(192 << 16))
        let mdhd = full("mdhd", 0, 0, u32(0) + u32(0) + u32(1000) + u32(0) + [0x55, 0xC4, 0, 0])
        let hdlr = full("hdlr", 0, 0, u32(0) + FourCC("pict").bytes + u32(0) + u32(0) + u32(0) + [0])
        // VisualSampleEntry (ISO/IEC 14496-12 §12.1.3): reserved, data_reference_index, pre_defined and reserved,
        // width, height, resolutions, reserved, frame_count, compressorname, depth, pre_defined −1; then the hvcC.
        let entry: [UInt8] =
            zeros(6) + [0, 1] + zeros(16) + [1, 0, 0, 192] + u32(0x48_0000) + u32(0x48_0000) + u32(0) + [0, 1]
            + zeros(32) + [0, 0x18, 0xFF, 0xFF] + hvcC
        let stsd = full("stsd", 0, 0, u32(1) + box("hvc1", entry))
        let stbl = box(
            "stbl",
            stsd + full("stts", 0, 0, u32(0)) + full("stsc", 0, 0, u32(0)) + full("stsz", 0, 0, u32(0) + u32(0))
                + full("stco", 0, 0, u32(0)))
        let dinf = box("dinf", full("dref", 0, 0, u32(1) + full("url ", 0, 1, [])))
        let minf = box("minf", full("vmhd", 0, 1, zeros(8)) + dinf + stbl)
        let trak = box("trak", tkhd + box("mdia", mdhd + hdlr + minf))
        return ftyp + box("moov", mvhd + trak)
    }
}

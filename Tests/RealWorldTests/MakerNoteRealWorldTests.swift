import Audit
import Converter
import CorpusKit
import Exiv2Bridge
import Foundation
import Metadata
import TestSupport
import Testing

/// Real MakerNotes of six makers, each carried whole into a DNG that CorpusKit writes now, with a 64 KB UserComment
/// beside it so the Exif is past JPEG's 64 KB APP1 budget (as a Canon CR2's 75 KB MakerNote is). Nothing derived is
/// kept: the DNGs live in a temporary folder for the test's duration.
enum MakerNoteDonors {
    static let files = [
        "jpeg/exiftool_Canon_makernote.jpg", "jpeg/exiftool_Olympus_makernote.jpg",
        "jpeg/exiftool_Pentax_makernote.jpg", "jpeg/exiftool_Sony_makernote.jpg", "other/exiv2_NikonZ6.exv",
        "other/exiv2_Olympus_u10D.exv", "other/exiv2_PanasonicDMC-ZS7.exv", "other/exiv2_RAW_PENTAX_K100.exv",
        "other/exiv2_SonyILCE-7SM3.exv",
    ]

    /// A CorpusKit DNG with `donor`'s MakerNote, Make and Model copied by exiftool (which fixes the offsets inside),
    /// and a 64 KB UserComment. The DNG takes the donor's byte order: exiv2 0.27 reads a Pentax "AOC" MakerNote in
    /// its file's order.
    static func transplant(_ donor: URL, into dir: URL) throws -> URL {
        let bigEndian = try Exiv2.read(path: donor.path).byteOrder == "MM"
        var spec = DNGSpec(layout: .bayer(.rggb), bitsPerSample: 14, seed: 3, bigEndian: bigEndian)
        spec.capture.makerNote = false
        let dng = dir.appendingPathComponent(donor.deletingPathExtension().lastPathComponent + ".dng")
        try Data(DNGWriter.write(scene: Chart(width: 384, height: 256, highlightStops: 1), spec: spec)).write(to: dng)
        let comment = String(repeating: "Readback transplant padding. ", count: 2300)
        let r = try TestSupport.Tool.run(
            "exiftool",
            [
                "-q", "-overwrite_original", "-tagsFromFile", donor.path, "-MakerNotes", "-Make", "-Model",
                "-UserComment=\(comment)", dng.path,
            ])
        try #require(r.status == 0, "exiftool: \(String(decoding: r.err, as: UTF8.self))")
        return dng
    }

    /// One MakerNote tag as exiv2 reads it.
    struct Tag {
        var group: String
        var tagName: String
        var raw: [UInt8]
    }

    /// exiv2's MakerNote entries of a file by key (without exiv2's own Offset/ByteOrder bookkeeping).
    static func makerTags(_ url: URL) throws -> [String: Tag] {
        let doc = try Exiv2.read(path: url.path)
        var out: [String: Tag] = [:]
        for e in doc.entries where e.isMakerNote && e.group != "MakerNote" {
            out[e.key] = Tag(group: e.group, tagName: e.tagName, raw: e.raw)
        }
        return out
    }
}

/// Every MakerNote tag exiv2 counts in the source is in the output with the same value, apart from the preview tags
/// the content rule names (docs/policy.md "MakerNote previews") and pointers whose offsets were fixed; the 64 KB
/// UserComment survives; the audit of the output keeps no original over its metadata.
@Test(arguments: MakerNoteDonors.files)
func realWorldMakerNotesAreCarriedWhole(donorPath: String) throws {
    let donor = try RealWorldCorpus.root().appendingPathComponent(donorPath)
    let dir = Repo.temporaryDirectory("rb-makernote")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = try MakerNoteDonors.transplant(donor, into: dir)
    let source = try MakerNoteDonors.makerTags(src)
    let donorTags = try MakerNoteDonors.makerTags(donor)
    #expect(
        !source.isEmpty && source.count >= donorTags.count - 2,
        "\(donorPath): transplanted \(source.count) of \(donorTags.count) tags")

    let converted = try HEICConverter.convert(source: src, decoders: .inProcess)
    let out = dir.appendingPathComponent("out.heic")
    try Data(converted.bytes).write(to: out)
    let output = try MakerNoteDonors.makerTags(out)
    var previews: [String] = []
    var missing: [String] = []
    var changed: [String] = []
    for (key, e) in source.sorted(by: { $0.key < $1.key }) {
        if EntryDecoder.isMakerNotePreview(group: e.group, name: e.tagName) {
            previews.append(key)
        } else if let o = output[key] {
            if o.raw != e.raw && !EntryDecoder.isMakerNotePointer(group: e.group, name: e.tagName) {
                changed.append(key)
            }
        } else {
            missing.append(key)
        }
    }
    let sizes = try [src, out].map { try Exiv2.read(path: $0.path).entries.first { $0.key == "Exif.Photo.MakerNote" } }
    print(
        "MAKERNOTE \(donorPath): \(source.count) tags, output \(output.count), previews not carried \(previews.count), "
            + "MakerNote \(sizes[0]?.raw.count ?? 0) → \(sizes[1]?.raw.count ?? 0) B; losses \(converted.result.knownLosses)"
    )
    #expect(missing.isEmpty, "\(donorPath): missing \(missing)")
    #expect(changed.isEmpty, "\(donorPath): changed \(changed)")
    let comment = try Exiv2.read(path: out.path).entries.first { $0.key == "Exif.Photo.UserComment" }
    #expect((comment?.raw.count ?? 0) > 60_000, "\(donorPath): UserComment \(comment?.raw.count ?? 0) B")

    let job = AuditJob(name: out.lastPathComponent, source: src, output: out)
    let audit = FileAuditor(
        options: AuditOptions(policy: .readbackOutputs, decode: true, thumbnails: false, jobs: 1), decoders: .inProcess)
    let kept = audit.audit(job).findings.filter { $0.code.rawValue.hasPrefix("metadata.") }
        .filter { Policy.convert.conversionAction(for: $0) != .pass }
    #expect(kept.isEmpty, "\(donorPath): \(kept.map { "\($0.code): \($0.message)" })")
}

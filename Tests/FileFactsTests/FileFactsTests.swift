import FileFacts
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A photo as a desktop user leaves it: KDE/GNOME tags, a rating, a comment, its download origin and a shatag
/// checksum in xattrs (set with `setfattr`, the independent tool), mode 640, a 2019 mtime to the nanosecond.
struct TaggedFile {
    static let mtimeNs: Int64 = 1_561_000_000_123_456_789  // 2019-06-20
    static let atimeNs: Int64 = 1_561_100_000_987_654_321
    static let attributes = Xattrs.desktop

    /// Writes `bytes` at `path` and gives it the facts above.
    static func make(_ path: String, bytes: [UInt8] = Array("photo".utf8)) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let failed = try Xattrs.set(attributes, on: path)
        #expect(failed.isEmpty, "setfattr: \(failed)")
        #expect(chmod(path, 0o640) == 0)
        try FileFacts(mode: 0o640, uid: 0, gid: 0, atimeNs: atimeNs, mtimeNs: mtimeNs).stampTimesOrThrow(path)
    }
}

struct StampFailed: Error { let problem: String }

extension FileFacts {
    func stampTimesOrThrow(_ path: String) throws {
        if let problem = stampTimes(on: path) { throw StampFailed(problem: problem) }
    }
}

/// What `getfattr` lists, as name → value: the oracle our reader is compared with.
func getfattr(_ path: String) throws -> [String: String] { try Xattrs.read(path) }

@Test func readAgreesWithGetfattrAndStat() throws {
    let dir = Repo.temporaryDirectory("facts-read")
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("IMG_1.dng").path
    try TaggedFile.make(path)
    let f = try FileFacts.read(path: path)
    #expect(f.xattrsSupported)
    #expect(f.mode == 0o640)
    #expect(f.mtimeNs == TaggedFile.mtimeNs)
    #expect(f.atimeNs == TaggedFile.atimeNs)
    let oracle = try getfattr(path)
    #expect(oracle.count == TaggedFile.attributes.count)
    #expect(f.xattrs.mapValues { String(decoding: $0, as: UTF8.self) } == oracle)
    // stat(1) as the second oracle for the time, to the nanosecond.
    let st = try Tool.run("stat", ["-c", "%.9Y", path])
    #expect(
        String(decoding: st.out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            == "1561000000.123456789")
}

@Test func carryKeepsEveryFactButChecksums() throws {
    let dir = Repo.temporaryDirectory("facts-carry")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("IMG_1.dng").path
    let out = dir.appendingPathComponent("IMG_1.heic").path
    try TaggedFile.make(src)
    try Data("converted".utf8).write(to: URL(fileURLWithPath: out))
    #expect(chmod(out, 0o666) == 0)  // wider than the source: the carry must narrow it
    let facts = try FileFacts.read(path: src)
    let report = facts.carry(to: out)
    #expect(report.failed.isEmpty && report.problems.isEmpty, "\(report)")
    #expect(report.dropped == ["user.shatag.sha256"])
    let o = try FileFacts.read(path: out)
    #expect(o.mode == 0o640)
    #expect(o.mtimeNs == TaggedFile.mtimeNs && o.atimeNs == TaggedFile.atimeNs)
    var expected = try getfattr(src)
    expected["user.shatag.sha256"] = nil
    #expect(try getfattr(out) == expected)
    #expect(o.uid == facts.uid && o.gid == facts.gid)
}

/// As root the owner and group travel too (a photo of another user's library stays theirs).
@Test func rootCarriesTheOwner() throws {
    let dir = Repo.temporaryDirectory("facts-owner")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("s").path
    let out = dir.appendingPathComponent("o").path
    try Data("x".utf8).write(to: URL(fileURLWithPath: src))
    try Data("y".utf8).write(to: URL(fileURLWithPath: out))
    let facts = try FileFacts.read(path: src)
    let owned = FileFacts(mode: 0o600, uid: 4321, gid: 4322, atimeNs: facts.atimeNs, mtimeNs: facts.mtimeNs)
    let report = owned.carry(to: out)
    let o = try FileFacts.read(path: out)
    if geteuid() == 0 {
        #expect(report.problems.isEmpty, "\(report)")
        #expect(o.uid == 4321 && o.gid == 4322)
        let st = try Tool.run("stat", ["-c", "%u:%g", out])
        #expect(String(decoding: st.out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "4321:4322")
    } else {
        // Only root may give a file away; the output stays the runner's, and nothing is claimed.
        #expect(o.uid == getuid())
    }
}

@Test func setuidBitsAreNeverCarried() throws {
    let dir = Repo.temporaryDirectory("facts-mode")
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("o").path
    try Data("x".utf8).write(to: URL(fileURLWithPath: out))
    let facts = FileFacts(mode: 0o4750, uid: getuid(), gid: getgid(), atimeNs: 0, mtimeNs: 0)
    #expect(facts.outputMode == 0o750)
    _ = facts.carry(to: out)
    #expect(try FileFacts.read(path: out).mode == 0o750)
}

@Test func rolesOfAttributeNames() {
    #expect(XattrRole(name: "user.xdg.tags") == .tags)
    #expect(XattrRole(name: "user.baloo.rating") == .rating)
    #expect(XattrRole(name: "user.xdg.comment") == .comment)
    #expect(XattrRole(name: "user.shatag.ts") == .checksum)
    #expect(XattrRole(name: "user.checksum.sha256") == .checksum)
    #expect(XattrRole(name: "user.md5sum") == .checksum)
    #expect(XattrRole(name: "user.xdg.origin.url") == .other)
    #expect(XattrRole(name: "user.xdg.tags").isUserCurated && !XattrRole(name: "user.xdg.origin.url").isUserCurated)
}

/// A filesystem that refuses extended attributes: a real ramfs mounted here when the test runs as root (CI does);
/// otherwise the same refusal (EOPNOTSUPP from lsetxattr) injected, and the test says which it used.
@Test func aFilesystemWithoutXattrsIsReportedNotSilent() throws {
    let dir = Repo.temporaryDirectory("facts-nofs")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("IMG_1.dng").path
    try TaggedFile.make(src)
    let facts = try FileFacts.read(path: src)
    let mnt = dir.appendingPathComponent("ramfs").path
    try FileManager.default.createDirectory(atPath: mnt, withIntermediateDirectories: true)
    let mounted = try geteuid() == 0 && Tool.run("mount", ["-t", "ramfs", "ramfs", mnt]).status == 0
    defer { if mounted { _ = try? Tool.run("umount", [mnt]) } }
    print("file facts: filesystem without xattrs = \(mounted ? "a real ramfs" : "injected EOPNOTSUPP (not root)")")
    let out = (mnt as NSString).appendingPathComponent("IMG_1.heic")
    try Data("converted".utf8).write(to: URL(fileURLWithPath: out))
    let report =
        mounted
        ? facts.carry(to: out)
        : facts.carry(to: out, setAttribute: { _, _, _ in EOPNOTSUPP })
    let carriedNames = TaggedFile.attributes.map(\.0).filter { $0 != "user.shatag.sha256" }.sorted()
    #expect(report.carried.isEmpty)
    #expect(report.failed.keys.sorted() == carriedNames)
    #expect(report.failed.values.allSatisfy { $0.contains("does not support extended attributes") })
    #expect(report.lines.count == carriedNames.count)
    if mounted {
        let o = try FileFacts.read(path: out)
        #expect(!o.xattrsSupported || o.xattrs.isEmpty)
        #expect(o.mode == 0o640 && o.mtimeNs == TaggedFile.mtimeNs)
    }
}

@Test func neutralSidecarsHoldNoEdits() {
    // What Lightroom writes for a photo nobody touched: every setting at its default.
    let untouched: [(key: String, text: String)] = [
        ("Xmp.crs.Version", "15.0"), ("Xmp.crs.ProcessVersion", "11.0"), ("Xmp.crs.WhiteBalance", "As Shot"),
        ("Xmp.crs.Exposure2012", "0.00"), ("Xmp.crs.Contrast2012", "0"), ("Xmp.crs.Sharpness", "40"),
        ("Xmp.crs.ColorNoiseReduction", "25"), ("Xmp.crs.HasCrop", "False"), ("Xmp.crs.ToneCurveName2012", "Linear"),
        ("Xmp.crs.HasSettings", "True"), ("Xmp.xmp.Rating", "4"), ("Xmp.tiff.Orientation", "6"),
        // The parametric curve's split points (their defaults), not its adjustments; a legacy curve name beside the
        // 2012 process's Linear one (what a real Lightroom DNG in the corpus holds).
        ("Xmp.crs.ParametricShadowSplit", "25"), ("Xmp.crs.ParametricMidtoneSplit", "50"),
        ("Xmp.crs.ParametricHighlightSplit", "75"), ("Xmp.crs.ToneCurveName", "Medium Contrast"),
        ("Xmp.crs.PerspectiveScale", "100"), ("Xmp.crs.ParametricShadows", "0"),
    ]
    #expect(Sidecar.developEdits(untouched, sourceOrientation: 6).isEmpty)
    // darktable's own defaults, marked as its built-in presets, are not edits either.
    let dt: [(key: String, text: String)] = [
        ("Xmp.darktable.history_end", "3"),
        ("Xmp.darktable.history[1]/darktable:operation", "rawprepare"),
        ("Xmp.darktable.history[2]/darktable:operation", "exposure"),
        ("Xmp.darktable.history[2]/darktable:multi_name", "_builtin_scene-referred default"),
        ("Xmp.darktable.history[3]/darktable:operation", "filmicrgb"),
        ("Xmp.darktable.history[3]/darktable:multi_name", "_builtin_scene-referred default"),
    ]
    #expect(Sidecar.developEdits(dt, sourceOrientation: 1).isEmpty)
}

@Test func developSettingsAreNamed() {
    let edited: [(key: String, text: String)] = [
        ("Xmp.crs.Exposure2012", "+0.50"), ("Xmp.crs.WhiteBalance", "Custom"), ("Xmp.crs.Temperature", "5200"),
        ("Xmp.crs.HasCrop", "True"), ("Xmp.crs.CropTop", "0.1"), ("Xmp.tiff.Orientation", "8"),
        ("Xmp.darktable.history_end", "2"),
        ("Xmp.darktable.history[1]/darktable:operation", "exposure"),
        ("Xmp.darktable.history[2]/darktable:operation", "crop"),
        ("Xmp.darktable.history[3]/darktable:operation", "colorzones"),  // past history_end: undone
    ]
    let edits = Sidecar.developEdits(edited, sourceOrientation: 1)
    #expect(edits.contains("crs:Exposure2012 +0.50"))
    #expect(edits.contains { $0.hasPrefix("white balance Custom (Temperature 5200") })
    #expect(edits.contains { $0.hasPrefix("crop (CropTop 0.1") })
    #expect(edits.contains { $0.hasPrefix("orientation 8") })
    #expect(edits.contains("darktable: exposure, crop"))
    #expect(edits.count == 5)
}

@Test func sidecarRoutesNameWhereEachPropertyWent() {
    let lines = Sidecar.routes(
        sidecarKeys: [
            "Xmp.xmp.Rating", "Xmp.dc.subject", "Xmp.crs.Exposure2012", "Xmp.darktable.history[1]/darktable:operation",
            "Xmp.foo.bar",
        ],
        outputKeys: ["Xmp.xmp.Rating", "Xmp.dc.subject", "Xmp.darktable.history"])
    #expect(
        lines == [
            "→ XMP: dc:subject, xmp:Rating",
            "develop settings, not applied, stay in the sidecar beside the original: crs:Exposure2012",
            "→ XMP, develop settings not applied to the pixels: darktable:history",
            "not carried: foo:bar",
        ])
}

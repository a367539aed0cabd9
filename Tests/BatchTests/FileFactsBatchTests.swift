import FileFacts
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A photo as a desktop user leaves it: a real DNG with KDE/GNOME tags, a rating, a comment, its origin and
/// a shatag checksum in xattrs (set with `setfattr`), mode 640, and a 2019 mtime to the nanosecond.
enum LibraryEntry {
    static let mtime = "2019-06-20 10:00:00.123456789"
    static let mtimeSeconds = "1561024800.123456789"
    static let attributes = Xattrs.desktop

    static func make(_ url: URL, seed: Int) throws {
        var o = TestDNG.Options()
        o.width = 128
        o.height = 96
        try Data(TestDNG.make(o) { x, y in (Double((x + seed) % 13) / 30, Double(y % 7) / 20, 0.15) }).write(to: url)
        let failed = try Xattrs.set(attributes, on: url.path)
        #expect(failed.isEmpty, "setfattr: \(failed)")
        try sh("chmod", "640", url.path)
        try sh("touch", "-d", mtime, url.path)
    }

    /// Runs a tool; a failure is a test failure naming it.
    @discardableResult
    static func sh(_ tool: String, _ args: String...) throws -> String {
        let r = try Tool.run(tool, args)
        #expect(r.status == 0, "\(tool) \(args.joined(separator: " ")): \(String(decoding: r.err, as: UTF8.self))")
        return String(decoding: r.out, as: UTF8.self)
    }

    /// `getfattr`'s view of the user.* attributes (the oracle), as name → value.
    static func xattrs(_ path: String) throws -> [String: String] { try Xattrs.read(path) }

    /// `stat`'s view: octal mode and mtime to the nanosecond.
    static func stat(_ path: String) throws -> String {
        try sh("stat", "-c", "%a %.9Y", path).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The attributes a converted output must carry: all but the checksum of the old bytes.
    static func expectedOnOutput() -> [String: String] { Xattrs.carried }
}

/// The JSON item lines of a `readback convert --json` run, by source file name.
func items(_ out: String) -> [String: [String: Any]] {
    var byName: [String: [String: Any]] = [:]
    for line in out.split(separator: "\n") {
        guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            o["event"] as? String == "item", let s = o["source"] as? String
        else { continue }
        let name = (s as NSString).lastPathComponent
        if byName[name] == nil { byName[name] = o }  // the item's own line, not its later removal line
    }
    return byName
}

func runReadback(_ args: [String], cwd: URL, home: URL) throws -> (status: Int32, out: String, err: String) {
    let r = try Tool.run(
        "env",
        [
            "-C", cwd.path, "HOME=\(home.path)", "SWIFT_BACKTRACE=enable=no",
            Repo.root.appendingPathComponent(".build/debug/readback").path,
        ] + args)
    return (r.status, String(decoding: r.out, as: UTF8.self), String(decoding: r.err, as: UTF8.self))
}

@Test func aTaggedPrivateDatedRAWConvertsToTheSameLibraryEntryThroughResumeAndTrash() throws {
    let dir = Repo.temporaryDirectory("facts-batch")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("src")
    try FileManager.default.createDirectory(at: src, withIntermediateDirectories: true)
    try LibraryEntry.make(src.appendingPathComponent("A.dng"), seed: 1)
    let first = try runReadback(["convert", "src", "--out", "out", "--json"], cwd: dir, home: dir)
    #expect(first.status == 0, "\(first.err)")
    let a = dir.appendingPathComponent("out/A.heic").path
    #expect(try LibraryEntry.xattrs(a) == LibraryEntry.expectedOnOutput())
    #expect(try LibraryEntry.stat(a) == "640 \(LibraryEntry.mtimeSeconds)")
    let lines = try #require(items(first.out)["A.dng"]?["fileFacts"] as? [String], "\(first.out)")
    #expect(lines.contains { $0.contains("user.shatag.sha256 dropped") }, "\(lines)")

    // A second photo arrives; the rerun resumes: A is skipped, B converts with its facts.
    try LibraryEntry.make(src.appendingPathComponent("B.dng"), seed: 2)
    let second = try runReadback(["convert", "src", "--out", "out", "--json"], cwd: dir, home: dir)
    #expect(second.status == 0, "\(second.err)")
    #expect(items(second.out)["A.dng"] == nil && second.out.contains("\"skipped\":1"), "\(second.out)")
    let b = dir.appendingPathComponent("out/B.heic").path
    #expect(try LibraryEntry.xattrs(b) == LibraryEntry.expectedOnOutput())
    #expect(try LibraryEntry.stat(b) == "640 \(LibraryEntry.mtimeSeconds)")

    // Removal to the Trash: the originals keep their attributes there.
    let third = try runReadback(
        ["convert", "src", "--out", "out", "--json", "--remove-originals", "trash"], cwd: dir, home: dir)
    #expect(third.status == 0, "\(third.err)")
    for name in ["A.dng", "B.dng"] {
        let trashed = dir.appendingPathComponent(".local/share/Trash/files/\(name)").path
        #expect(!FileManager.default.fileExists(atPath: src.appendingPathComponent(name).path))
        #expect(try LibraryEntry.xattrs(trashed) == Dictionary(uniqueKeysWithValues: LibraryEntry.attributes))
        #expect(try LibraryEntry.stat(trashed) == "640 \(LibraryEntry.mtimeSeconds)")
    }
}

/// The Trash of another filesystem (the source on a tmpfs, the home on the test folder's disk): the original goes to
/// `<mount>/.Trash-<uid>` by rename, and keeps its attributes. A tmpfs is mounted when running as root (CI); otherwise
/// /dev/shm serves.
@Test func trashOnAnotherDeviceKeepsXattrs() throws {
    let dir = Repo.temporaryDirectory("facts-trash-dev")
    defer { try? FileManager.default.removeItem(at: dir) }
    let mnt = dir.appendingPathComponent("tmpfs")
    try FileManager.default.createDirectory(at: mnt, withIntermediateDirectories: true)
    let mounted =
        try geteuid() == 0 && Tool.run("mount", ["-t", "tmpfs", "-o", "size=64m", "tmpfs", mnt.path]).status == 0
    defer { if mounted { _ = try? Tool.run("umount", [mnt.path]) } }
    let top = mounted ? mnt : URL(fileURLWithPath: "/dev/shm").appendingPathComponent("rb-\(UUID().uuidString)")
    defer { if !mounted { try? FileManager.default.removeItem(at: top) } }
    let src = top.appendingPathComponent("photos")
    try FileManager.default.createDirectory(at: src, withIntermediateDirectories: true)
    try LibraryEntry.make(src.appendingPathComponent("C.dng"), seed: 3)
    let r = try runReadback(
        [
            "convert", src.path, "--out", dir.appendingPathComponent("out").path, "--json", "--remove-originals",
            "trash",
        ],
        cwd: dir, home: dir)
    #expect(r.status == 0, "\(r.err)")
    let removal = r.out.split(separator: "\n").first { $0.contains("\"removed\"") && $0.contains("trashedTo") }
    let trashed = try #require(
        (removal.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any])?["trashedTo"]
            as? String, "\(r.out)")
    defer {
        if !mounted { try? FileManager.default.removeItem(atPath: (trashed as NSString).deletingLastPathComponent) }
    }
    #expect(trashed.contains("/.Trash-\(getuid())/files/"), "\(trashed)")
    #expect(!trashed.hasPrefix(dir.path + "/.local"), "went to the home trash on another device: \(trashed)")
    #expect(try LibraryEntry.xattrs(trashed) == Dictionary(uniqueKeysWithValues: LibraryEntry.attributes))
    #expect(try LibraryEntry.stat(trashed) == "640 \(LibraryEntry.mtimeSeconds)")
}

/// An output folder on a filesystem without extended attributes (a ramfs, mounted in a private mount namespace so
/// no root is needed outside it): the tags cannot follow, the convert says so, and the original is never removed.
@Test func anOutputFolderWithoutXattrsKeepsTheOriginal() throws {
    let dir = Repo.temporaryDirectory("facts-nofs-batch")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("src")
    let out = dir.appendingPathComponent("out")
    try FileManager.default.createDirectory(at: src, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    try LibraryEntry.make(src.appendingPathComponent("D.dng"), seed: 4)
    let readback = Repo.root.appendingPathComponent(".build/debug/readback").path
    let script =
        "mount -t ramfs ramfs '\(out.path)' && cd '\(dir.path)' && HOME='\(dir.path)' SWIFT_BACKTRACE=enable=no '\(readback)' convert src --out out --json --remove-originals delete"
    let r = try Tool.run("unshare", (geteuid() == 0 ? ["-m"] : ["-r", "-m"]) + ["sh", "-c", script])
    let text = String(decoding: r.out, as: UTF8.self)
    #expect(r.status == 1, "\(String(decoding: r.err, as: UTF8.self))")
    let item = try #require(items(text)["D.dng"], "\(text)")
    #expect(item["verdict"] as? String == "kept")
    let reasons = (item["reasons"] as? [String] ?? []).joined(separator: " ")
    #expect(reasons.contains("file.xattr.unsupported"), "\(reasons)")
    let facts = (item["fileFacts"] as? [String] ?? []).joined(separator: " ")
    #expect(facts.contains("does not support extended attributes"), "\(facts)")
    #expect(FileManager.default.fileExists(atPath: src.appendingPathComponent("D.dng").path))
}

/// A sidecar with develop settings (Lightroom's exposure and a crop): the photo converts unedited, so the original
/// stays whatever removal says, with the edits named; the sidecar's rating and keywords reach the output's XMP. A
/// sidecar with only neutral settings (an untouched photo in Lightroom) removes as usual.
@Test func unappliedSidecarEditsKeepTheOriginal() throws {
    let dir = Repo.temporaryDirectory("facts-sidecar")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("src")
    try FileManager.default.createDirectory(at: src, withIntermediateDirectories: true)
    func sidecar(_ settings: String) -> String {
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"
         xmlns:crs="http://ns.adobe.com/camera-raw-settings/1.0/" xmp:Rating="3" \(settings)>
        <dc:subject><rdf:Bag><rdf:li>garden</rdf:li></rdf:Bag></dc:subject></rdf:Description></rdf:RDF></x:xmpmeta>
        """
    }
    try LibraryEntry.make(src.appendingPathComponent("E.dng"), seed: 5)
    try sidecar("crs:Exposure2012=\"+0.50\" crs:HasCrop=\"True\" crs:CropTop=\"0.1\" crs:WhiteBalance=\"As Shot\"")
        .write(to: src.appendingPathComponent("E.xmp"), atomically: true, encoding: .utf8)
    try LibraryEntry.make(src.appendingPathComponent("F.dng"), seed: 6)
    // What Lightroom writes for a photo nobody edited, with its own record of the sidecar (tool, dates, IDs).
    try sidecar(
        "crs:Exposure2012=\"0.00\" crs:HasCrop=\"False\" crs:WhiteBalance=\"As Shot\" crs:Sharpness=\"40\" "
            + "xmlns:xmpMM=\"http://ns.adobe.com/xap/1.0/mm/\" xmpMM:DocumentID=\"xmp.did:1\" "
            + "xmpMM:InstanceID=\"xmp.iid:2\" xmp:CreatorTool=\"Adobe Photoshop Lightroom Classic 12.0\" "
            + "xmp:MetadataDate=\"2023-01-05T10:00:00+01:00\""
    )
    .write(to: src.appendingPathComponent("F.xmp"), atomically: true, encoding: .utf8)
    let r = try runReadback(
        ["convert", "src", "--out", "out", "--json", "--remove-originals", "delete"], cwd: dir, home: dir)
    #expect(r.status == 1, "\(r.err)")
    let byName = items(r.out)
    let e = try #require(byName["E.dng"], "\(r.out)")
    #expect(e["verdict"] as? String == "kept")
    let reasons = (e["reasons"] as? [String] ?? []).joined(separator: " ")
    #expect(reasons.contains("sidecar.edits-not-applied") && reasons.contains("crs:Exposure2012 +0.50"), "\(reasons)")
    #expect(reasons.contains("crop (CropTop 0.1"), "\(reasons)")
    #expect(FileManager.default.fileExists(atPath: src.appendingPathComponent("E.dng").path))
    let routes = (e["sidecar"] as? [String] ?? []).joined(separator: "\n")
    #expect(routes.contains("E.xmp → XMP: dc:subject, xmp:Rating"), "\(routes)")
    #expect(routes.contains("stay in the sidecar beside the original: crs:CropTop, crs:Exposure2012"), "\(routes)")
    // exiftool, the oracle, reads the sidecar's rating and keyword in the output.
    let x = try LibraryEntry.sh(
        "exiftool", "-s3", "-XMP:Rating", "-XMP:Subject", dir.appendingPathComponent("out/E.heic").path)
    #expect(x.split(separator: "\n") == ["3", "garden"], "\(x)")
    #expect(!x.contains("0.50"))
    // The neutral sidecar: nothing to apply, the original goes.
    #expect(byName["F.dng"]?["verdict"] as? String == "clean", "\(String(describing: byName["F.dng"]))")
    #expect(!FileManager.default.fileExists(atPath: src.appendingPathComponent("F.dng").path))
}

/// The auditor on any converter's pair: a faithful `cp -a` copy raises no file finding; a plain `cp` (new mtime,
/// mode from the umask, no xattrs) and a decode + re-encode through libheif's tools are caught, each loss by code.
@Test func plainCopiesAndRewritesAreCaughtByTheAudit() throws {
    let dir = Repo.temporaryDirectory("facts-audit")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("src")
    try FileManager.default.createDirectory(at: src, withIntermediateDirectories: true)
    try LibraryEntry.make(src.appendingPathComponent("G.dng"), seed: 7)
    let conv = try runReadback(["convert", "src", "--out", "out"], cwd: dir, home: dir)
    #expect(conv.status == 0, "\(conv.err)")
    try LibraryEntry.sh(
        "mkdir", "-p", dir.appendingPathComponent("faithful").path, dir.appendingPathComponent("plain").path,
        dir.appendingPathComponent("reenc").path)
    try LibraryEntry.sh(
        "cp", "-a", dir.appendingPathComponent("out/G.heic").path, dir.appendingPathComponent("faithful/G.heic").path)
    try LibraryEntry.sh("sh", "-c", "umask 022 && cp '\(dir.path)/out/G.heic' '\(dir.path)/plain/G.heic'")
    try LibraryEntry.sh(
        "heif-convert", dir.appendingPathComponent("out/G.heic").path, dir.appendingPathComponent("G.png").path)
    try LibraryEntry.sh("sh", "-c", "umask 022 && heif-enc -q 90 -o '\(dir.path)/reenc/G.heic' '\(dir.path)/G.png'")
    func codes(_ folder: String) throws -> [String: String] {
        let r = try runReadback(
            ["diff", "src/G.dng", "\(folder)/G.heic", "--json"], cwd: dir, home: dir)
        let parsed = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any]
        let doc = try #require(parsed, "\(r.err)")
        var out: [String: String] = [:]
        for f in doc["findings"] as? [[String: Any]] ?? [] {
            let code = f["code"] as? String ?? ""
            let severity = f["severity"] as? String ?? ""
            guard code.hasPrefix("file.") || code.hasPrefix("sidecar."), severity == "error" || severity == "warning"
            else { continue }
            let words = (f["message"] as? String ?? "").split(separator: " ")
            let name = words.first { $0.hasPrefix("user.") }.map(String.init) ?? ""
            out["\(code) \(name)"] = severity
        }
        return out
    }
    #expect(try codes("out").isEmpty)
    #expect(try codes("faithful").isEmpty)
    // cp without -p keeps the mode bits the umask allows (640 stays 640); heif-enc creates 644.
    var expected = [
        "file.xattr.lost user.xdg.tags": "error", "file.xattr.lost user.baloo.rating": "error",
        "file.xattr.lost user.xdg.comment": "error", "file.xattr.lost user.xdg.origin.url": "warning",
        "file.mtime.changed ": "warning",
    ]
    #expect(try codes("plain") == expected)
    expected["file.mode.widened "] = "error"
    #expect(try codes("reenc") == expected)
    // The audit says the same, and its report has the file section.
    let audit = try runReadback(["audit", "src/G.dng", "reenc/G.heic", "--report", "rep"], cwd: dir, home: dir)
    #expect(audit.status == 1, "\(audit.err)")
    let report = try String(contentsOf: dir.appendingPathComponent("rep/report.json"), encoding: .utf8)
    #expect(report.contains("\"fact\" : \"xattr user.xdg.tags\"") && report.contains("\"status\" : \"widened\""))
    let html = try String(contentsOf: dir.appendingPathComponent("rep/report.html"), encoding: .utf8)
    #expect(html.contains("<h4>File</h4>") && html.contains("<code>xattr user.baloo.rating</code>"))
}

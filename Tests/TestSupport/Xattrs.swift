import Foundation

/// A photo's desktop attributes as tests set and read them, through `setfattr` and `getfattr` (Debian `attr`), the
/// tools independent of Readback's own reader.
public enum Xattrs {
    /// KDE/GNOME tags, a rating, a comment, the download origin, and a checksum of the bytes (shatag).
    public static let desktop: [(String, String)] = [
        ("user.xdg.tags", "holiday,cat"), ("user.baloo.rating", "8"), ("user.xdg.comment", "Grandma's garden"),
        ("user.xdg.origin.url", "https://example.org/p.dng"), ("user.shatag.sha256", "00ff"),
    ]

    /// `desktop` without the checksum: what a converted output must carry.
    public static var carried: [String: String] {
        var a = Dictionary(uniqueKeysWithValues: desktop)
        a["user.shatag.sha256"] = nil
        return a
    }

    /// Sets each attribute with `setfattr`; returns the failures (name: stderr), empty when all were set.
    public static func set(_ attributes: [(String, String)], on path: String) throws -> [String: String] {
        var failed: [String: String] = [:]
        for (name, value) in attributes {
            let r = try Tool.run("setfattr", ["-n", name, "-v", value, path])
            if r.status != 0 { failed[name] = String(decoding: r.err, as: UTF8.self) }
        }
        return failed
    }

    /// `getfattr -d -m '^user\.' -e text`'s view of a file: name → value.
    public static func read(_ path: String) throws -> [String: String] {
        let r = try Tool.run("getfattr", ["--absolute-names", "-d", "-m", "^user\\.", "-e", "text", path])
        var out: [String: String] = [:]
        for line in String(decoding: r.out, as: UTF8.self).split(separator: "\n") where line.hasPrefix("user.") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            var v = String(line[line.index(after: eq)...])
            if v.hasPrefix("\""), v.hasSuffix("\""), v.count >= 2 { v = String(v.dropFirst().dropLast()) }
            out[String(line[..<eq])] = v
        }
        return out
    }
}

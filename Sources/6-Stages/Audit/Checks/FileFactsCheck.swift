import FileFacts
import Findings
import Foundation
import Isolation
import MetadataIO
import ReportModel

/// The pair as library entries: what a file browser, a photo manager sorting by date, KDE's or GNOME's tags and the
/// permission bits see, and the sidecar's edits. Any converter's pair is judged the same way; `readback diff` shows
/// the same rows.
public enum FileFactsCheck {
    /// The rows and findings of one pair.
    public struct Judgement: Sendable {
        public var rows: [FileFactRow] = []
        public var findings: [Finding] = []

        /// Adds a finding at the catalogue's severity for `code`.
        mutating func add(_ code: FindingCode, _ message: String, _ evidence: Evidence? = nil) {
            findings.append(Finding(code, message: message, evidence: evidence))
        }

        /// Adds a finding at a severity other than the catalogue's (the call site says why).
        mutating func add(_ code: FindingCode, _ severity: Severity, _ message: String, _ evidence: Evidence? = nil) {
            findings.append(Finding(code: code, severity: severity, message: message, evidence: evidence))
        }
    }

    /// Two modification times within this many seconds are the same time: second-granular tools (exiftool's
    /// FileModifyDate, tar, zip) and FAT's 2 s clock carry a time to within it (docs/policy.md "File facts").
    static let mtimeToleranceSeconds: Int64 = 2

    /// Compares the two files as library entries; nil when either cannot be `lstat`ed. A path that is a symlink is
    /// judged by the file it points to (a folder of links audits the linked files, not the links' own 0777 mode).
    /// - Parameters:
    ///   - sourceFile: the source already read (its own XMP is read from it, not from the file again).
    ///   - decoders: the decoders the source's and the sidecar's bytes go through.
    public static func judge(source src: URL, output out: URL, sourceFile: InputFile? = nil, decoders: any Decoders)
        -> Judgement?
    {
        guard let s = try? FileFacts.read(path: src.resolvingSymlinksInPath().path),
            let o = try? FileFacts.read(path: out.resolvingSymlinksInPath().path)
        else {
            return nil
        }
        var j = Judgement()
        mtime(s, o, &j)
        mode(s, o, &j)
        owner(s, o, &j)
        xattrs(s, o, &j)
        sidecar(src, sourceFile, decoders, &j)
        return j
    }

    /// ISO 8601 UTC with nanoseconds.
    static func time(_ ns: Int64) -> String {
        var (sec, frac) = ns.quotientAndRemainder(dividingBy: 1_000_000_000)
        if frac < 0 { (sec, frac) = (sec - 1, frac + 1_000_000_000) }  // before 1970
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        let base = f.string(from: Date(timeIntervalSince1970: TimeInterval(sec)))
        return frac == 0 ? base : base.replacingOccurrences(of: "Z", with: String(format: ".%09dZ", Int(frac)))
    }

    static func mtime(_ s: FileFacts, _ o: FileFacts, _ j: inout Judgement) {
        let delta = o.mtimeNs - s.mtimeNs
        let same = abs(delta) <= mtimeToleranceSeconds * 1_000_000_000
        j.rows.append(
            FileFactRow(
                fact: "mtime", source: time(s.mtimeNs), output: time(o.mtimeNs), status: same ? .kept : .changed))
        if !same {
            j.add(
                .fileMtimeChanged,
                "the output's modification time differs from the source's by \(Self.span(delta)): file browsers and photo managers that sort by it misplace the photo",
                Evidence(expected: time(s.mtimeNs), actual: time(o.mtimeNs)))
        }
    }

    static func span(_ ns: Int64) -> String {
        let s = Double(abs(ns)) / 1e9
        let sign = ns < 0 ? "−" : "+"
        if s < 120 { return "\(sign)\(String(format: "%.1f", s)) s" }
        if s < 2 * 86400 { return "\(sign)\(String(format: "%.1f", s / 3600)) h" }
        return "\(sign)\(String(format: "%.0f", s / 86400)) days"
    }

    static func octal(_ m: UInt32) -> String { String(m & 0o7777, radix: 8) }

    static func mode(_ s: FileFacts, _ o: FileFacts, _ j: inout Judgement) {
        // Who may read or write: group and others. An owner bit the source lacked widens nobody's access.
        let widened = (o.mode & ~s.mode) & 0o066
        let status: FileFactStatus = widened != 0 ? .widened : (o.mode & 0o777) == (s.mode & 0o777) ? .kept : .narrowed
        j.rows.append(FileFactRow(fact: "mode", source: octal(s.mode), output: octal(o.mode), status: status))
        if widened != 0 {
            var who: [String] = []
            if widened & 0o040 != 0 { who.append("the group can read it") }
            if widened & 0o020 != 0 { who.append("the group can write it") }
            if widened & 0o004 != 0 { who.append("everyone can read it") }
            if widened & 0o002 != 0 { who.append("everyone can write it") }
            j.add(
                .fileModeWidened,
                "the output is open to more people than the source: \(who.joined(separator: ", ")) (mode \(octal(o.mode)), the source's \(octal(s.mode)))",
                Evidence(expected: "no wider than \(octal(s.mode))", actual: octal(o.mode)))
        }
    }

    static func owner(_ s: FileFacts, _ o: FileFacts, _ j: inout Judgement) {
        let same = s.uid == o.uid && s.gid == o.gid
        j.rows.append(
            FileFactRow(
                fact: "owner", source: "\(s.uid):\(s.gid)", output: "\(o.uid):\(o.gid)",
                status: same ? .kept : .changed))
        if !same {
            j.add(
                .fileOwnerChanged,
                "the output belongs to \(o.uid):\(o.gid), the source to \(s.uid):\(s.gid) (only root can keep an owner)",
                Evidence(expected: "\(s.uid):\(s.gid)", actual: "\(o.uid):\(o.gid)"))
        }
    }

    /// An attribute value as text for the report: UTF-8 when it is, hex otherwise, cut at 200 characters.
    static func show(_ v: [UInt8]?) -> String? {
        guard let v else { return nil }
        let text = String(decoding: v, as: UTF8.self)
        let shown =
            Array(text.utf8) == v && !text.contains("\u{0}") ? text : v.map { String(format: "%02x", $0) }.joined()
        return shown.count > 200 ? String(shown.prefix(200)) + "…" : shown
    }

    /// Two values of one attribute as values: tags as a set of comma-separated names, a rating as a number, anything
    /// else byte for byte (a trailing NUL, which some tools write, ignored).
    static func sameValue(_ name: String, _ a: [UInt8], _ b: [UInt8]) -> Bool {
        func trimmed(_ v: [UInt8]) -> [UInt8] { v.last == 0 ? Array(v.dropLast()) : v }
        let (x, y) = (String(decoding: trimmed(a), as: UTF8.self), String(decoding: trimmed(b), as: UTF8.self))
        switch XattrRole(name: name) {
        case .tags:
            func set(_ t: String) -> Set<String> {
                Set(t.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
            }
            return set(x) == set(y)
        case .rating:
            if let i = Double(x.trimmingCharacters(in: .whitespaces)),
                let j = Double(y.trimmingCharacters(in: .whitespaces))
            {
                return i == j
            }
            return x == y
        default: return trimmed(a) == trimmed(b)
        }
    }

    static func xattrs(_ s: FileFacts, _ o: FileFacts, _ j: inout Judgement) {
        var unsupported: [String] = []
        for name in s.xattrs.keys.sorted() {
            let role = XattrRole(name: name)
            let sv = s.xattrs[name]!
            let severity: Severity = role.isUserCurated ? .error : .warning
            guard let ov = o.xattrs[name] else {
                if role == .checksum {
                    j.rows.append(FileFactRow(fact: "xattr \(name)", source: show(sv), output: nil, status: .dropped))
                    j.add(
                        .fileXattrDropped,
                        "\(name) not carried: it is a checksum of the source's bytes, untrue of the output's",
                        Evidence(expected: "dropped", actual: "dropped"))
                } else if !o.xattrsSupported {
                    j.rows.append(
                        FileFactRow(fact: "xattr \(name)", source: show(sv), output: nil, status: .unsupported))
                    unsupported.append(name)
                } else {
                    j.rows.append(FileFactRow(fact: "xattr \(name)", source: show(sv), output: nil, status: .lost))
                    j.add(
                        .fileXattrLost, severity,
                        "the output lost the \(role == .other ? "extended attribute" : role.rawValue) \(name) (\(show(sv) ?? ""))",
                        Evidence(expected: show(sv), actual: "absent"))
                }
                continue
            }
            if role == .checksum || sameValue(name, sv, ov) {
                j.rows.append(FileFactRow(fact: "xattr \(name)", source: show(sv), output: show(ov), status: .kept))
            } else {
                j.rows.append(FileFactRow(fact: "xattr \(name)", source: show(sv), output: show(ov), status: .changed))
                j.add(
                    .fileXattrChanged, severity, "the output's \(name) differs from the source's",
                    Evidence(expected: show(sv), actual: show(ov)))
            }
        }
        for name in o.xattrs.keys.sorted() where s.xattrs[name] == nil {
            j.rows.append(
                FileFactRow(fact: "xattr \(name)", source: nil, output: show(o.xattrs[name]), status: .added))
        }
        if !unsupported.isEmpty {
            let curated = unsupported.contains { XattrRole(name: $0).isUserCurated }
            j.add(
                .fileXattrUnsupported, curated ? .error : .warning,
                "the output's filesystem does not support extended attributes: \(unsupported.count) lost (\(unsupported.joined(separator: ", ")))",
                Evidence(
                    expected: unsupported.joined(separator: ", "),
                    actual: "no extended attributes on the output's filesystem"))
        }
    }

    /// Develop settings in the source's sidecar, and in a DNG's own XMP (Adobe's DNG Converter and Lightroom write
    /// their settings there): edits the RAW's renderer shows and a converter that ignores them does not.
    static func sidecar(_ src: URL, _ file: InputFile?, _ decoders: any Decoders, _ j: inout Judgement) {
        let side = Sidecar.locate(for: src)
        let entries = side.flatMap { MetadataReader.xmpEntries($0, decoders: decoders) }
        let isDNG = src.pathExtension.lowercased() == "dng"
        // The source itself is read (once) only when it matters: a DNG's own XMP, or the RAW's orientation against a
        // sidecar's tiff:Orientation.
        let source =
            isDNG || (entries?.contains { $0.key == "Xmp.tiff.Orientation" } ?? false)
            ? (file.map { MetadataReader.xmpAndOrientation($0) }
                ?? MetadataReader.xmpAndOrientation(src, decoders: decoders)) : nil
        if let side, let entries {
            report(
                Sidecar.developEdits(entries, sourceOrientation: source?.orientation), fact: "sidecar",
                name: side.lastPathComponent, &j)
        }
        if isDNG, let own = source?.xmp {
            let develop = own.filter { $0.key.hasPrefix("Xmp.crs.") || $0.key.hasPrefix("Xmp.darktable.") }
            let edits = Sidecar.developEdits(develop, sourceOrientation: nil)
            if !edits.isEmpty {
                report(edits, fact: "develop settings", name: "\(src.lastPathComponent) (its own XMP)", &j)
            }
        }
    }

    static func report(
        _ edits: [String], fact: String, name: String, _ j: inout Judgement
    ) {
        j.rows.append(
            FileFactRow(
                fact: "\(fact) \(name)", source: edits.isEmpty ? "no develop settings" : edits.joined(separator: "; "),
                output: nil, status: edits.isEmpty ? .kept : .editsNotApplied))
        if !edits.isEmpty {
            j.add(
                .sidecarEditsNotApplied,
                "\(name) holds edits to the RAW that the output does not show unless its converter applied them: \(edits.joined(separator: "; "))",
                Evidence(expected: "the edits applied to the pixels", actual: edits.joined(separator: "; ")))
        }
    }
}

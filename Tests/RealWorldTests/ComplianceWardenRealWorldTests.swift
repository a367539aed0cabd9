import Foundation
import HEIF
import HeifCodec
import TestSupport
import Testing

/// Readback's outputs as the reference conformance checker judges them: GPAC's ComplianceWarden, built from the
/// shared tools folder (`READBACK_TOOLS`, else the corpus folder's sibling `tools/`) into `.build/`, runs its
/// isobmff, heif and miaf rules over the conversion of every generated Corpus DNG in each encoding mode. No error
/// is allowed except MIAF rule #35 on a file with a `tmap` item: that rule predates ISO 21496-1 and rejects every
/// `tmap` derivation, phones' files included (docs/policy.md). Beyond the checker, every coded item's `ispe` must be
/// the size its stream decodes to (HEIF §6.5.3.1), and no coded item may carry a `clap`.
@Suite(.serialized) struct ComplianceWardenRealWorldTests {
    /// The encoding modes, as `readback convert` flags.
    static let modes: [String: [String]] = [
        "default": [], "untiled": ["--tile-size", "0"], "depth10": ["--depth", "10"],
        "chroma444": ["--chroma", "444"], "hdroff": ["--hdr", "off"], "archival": ["--target", "archival"],
    ]

    @Test(arguments: modes.keys.sorted())
    func everyCorpusDNGConvertsToAFileComplianceWardenPasses(_ mode: String) throws {
        let cw = try ComplianceWarden.binary.get()
        let dngs = try FileManager.default.contentsOfDirectory(
            at: Repo.root.appendingPathComponent("Corpus/dng"), includingPropertiesForKeys: nil
        ).filter { $0.pathExtension == "dng" }.sorted { $0.path < $1.path }
        #expect(dngs.count >= 21, "Corpus/dng holds \(dngs.count) DNGs")
        #expect(dngs.contains { $0.lastPathComponent.contains("odd-515x323") }, "the odd-sized chart is missing")
        let dir = Repo.temporaryDirectory("readback-cw-\(mode)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let readback = Repo.root.appendingPathComponent(".build/debug/readback").path
        let r = try TestSupport.Tool.run(
            readback,
            ["convert", Repo.root.appendingPathComponent("Corpus/dng").path, "--out", dir.path, "--quiet"]
                + Self.modes[mode]!)
        #expect(r.status != 2, "convert \(mode): \(String(decoding: r.err, as: UTF8.self))")
        for dng in dngs {
            let name = dng.deletingPathExtension().lastPathComponent
            let out = dir.appendingPathComponent(name + ".heic")
            guard let bytes = try? [UInt8](Data(contentsOf: out)) else {
                Issue.record("\(mode) \(name): no output")
                continue
            }
            let hasTmap = HEIFFile(bytes: bytes).items.contains { $0.type == "tmap" }
            let errors = try ComplianceWarden.errors(cw, out)
            let unexpected = errors.filter { !(hasTmap && $0.spec == "miaf" && $0.rule == "35") }
            #expect(unexpected.isEmpty, "\(mode) \(name): \(unexpected.map(\.text).joined(separator: "; "))")
            for problem in Self.codedItemProblems(bytes) { Issue.record("\(mode) \(name): \(problem)") }
        }
    }

    /// Coded items whose `ispe` is not the size libheif decodes their stream to (each decoded alone, without
    /// transforms), or that carry a `clap`.
    static func codedItemProblems(_ bytes: [UInt8]) -> [String] {
        let f = HEIFFile(bytes: bytes)
        var out: [String] = []
        for item in f.items where item.type == "hvc1" {
            var ispe: (UInt32, UInt32)?
            for a in f.properties(of: item.id) {
                if case .ispe(let w, let h) = a.property { ispe = (w, h) }
                if a.property.type == "clap" { out.append("item \(item.id) has a clap") }
            }
            guard let (w, h) = ispe, let alone = f.standaloneFile(for: item.id) else {
                out.append("item \(item.id): no ispe or not decodable alone")
                continue
            }
            do {
                let d = try HeifDecoder.decodePrimarySize(alone)
                if d.width != Int(w) || d.height != Int(h) {
                    out.append("item \(item.id): ispe \(w)×\(h), stream decodes to \(d.width)×\(d.height)")
                }
            } catch {
                out.append("item \(item.id): \(error)")
            }
        }
        return out
    }
}

/// GPAC's ComplianceWarden, built once per test run.
enum ComplianceWarden {
    struct Finding {
        var spec: String
        var rule: String
        var text: String
    }

    /// `make -C TOOLS/compliance-warden BIN=.build/compliance-warden` (incremental; the checker's objects and binary
    /// go to the repository's build folder, nothing into the shared one).
    static let binary: Result<URL, any Error> = Result {
        let tools: URL
        if let t = ProcessInfo.processInfo.environment["READBACK_TOOLS"] {
            tools = URL(fileURLWithPath: t)
        } else {
            tools = try RealWorldCorpus.root().deletingLastPathComponent().appendingPathComponent("tools")
        }
        let src = tools.appendingPathComponent("compliance-warden")
        let bin = Repo.root.appendingPathComponent(".build/compliance-warden")
        let r = try TestSupport.Tool.run("make", ["-s", "-C", src.path, "BIN=\(bin.path)", "-j2"])
        let exe = bin.appendingPathComponent("cw.exe")
        guard r.status == 0, FileManager.default.isExecutableFile(atPath: exe.path) else {
            throw RealWorldCorpus.Missing(
                what: "building ComplianceWarden from \(src.path) failed: \(String(decoding: r.err, as: UTF8.self))")
        }
        return exe
    }

    /// The errors of `-s miaf` (which runs the isobmff and heif rules too) on `file`.
    static func errors(_ cw: URL, _ file: URL) throws -> [Finding] {
        let r = try TestSupport.Tool.run(cw.path, ["-s", "miaf", "-f", "json", file.path])
        guard let json = try? JSONSerialization.jsonObject(with: r.out) else {
            return [Finding(spec: "-", rule: "-", text: "ComplianceWarden could not parse the file (exit \(r.status))")]
        }
        // {"specification": "miaf", "validation": [{"specification": …, "errors": [{"rule", "description"}]}]}
        let specs = ((json as? [String: Any])?["validation"] as? [[String: Any]]) ?? []
        if specs.isEmpty { return [Finding(spec: "-", rule: "-", text: "no validation in ComplianceWarden's JSON")] }
        var out: [Finding] = []
        for s in specs {
            let spec = (s["specification"] as? String) ?? "?"
            for e in (s["errors"] as? [[String: Any]]) ?? [] {
                let rule = (e["rule"] as? String) ?? "?"
                let text = "[\(spec)] #\(rule) \((e["description"] as? String) ?? "")"
                out.append(Finding(spec: spec, rule: rule, text: text))
            }
        }
        return out
    }
}

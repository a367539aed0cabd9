import Foundation

/// Runs the Debian tools the calibration builds outputs and computes truth with (libheif-examples, exiftool,
/// libvips-tools, imagemagick), looked up on PATH. Output and errors go through files, so a chatty tool cannot
/// block on a full pipe.
enum Tool {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// True when `name` is an executable on PATH.
    static func exists(_ name: String) -> Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(name)")
        }
    }

    /// Runs a tool and returns what it wrote to standard output.
    /// - Throws: ``Failure`` with the command and the tail of standard error when it exits non-zero.
    /// - Parameter accept: exit statuses besides 0 that still count as success (exiftool exits 1 when one of many
    ///   files had an error, after reporting the others).
    @discardableResult
    static func run(_ name: String, _ args: [String], accept: Set<Int32> = []) throws -> Data {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("readback-tool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        let err = dir.appendingPathComponent("err")
        guard FileManager.default.createFile(atPath: out.path, contents: nil),
            FileManager.default.createFile(atPath: err.path, contents: nil)
        else { throw CocoaError(.fileWriteUnknown) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [name] + args
        p.standardOutput = try FileHandle(forWritingTo: out)
        p.standardError = try FileHandle(forWritingTo: err)
        p.standardInput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        let stdout = (try? Data(contentsOf: out)) ?? Data()
        guard p.terminationStatus == 0 || accept.contains(p.terminationStatus) else {
            let e = String(decoding: ((try? Data(contentsOf: err)) ?? Data()).suffix(400), as: UTF8.self)
            throw Failure(description: "\(name) \(args.joined(separator: " ")) exited \(p.terminationStatus): \(e)")
        }
        return stdout
    }

    /// exiftool's JSON (`-j`) for files, one dictionary per file keyed by SourceFile.
    static func exiftool(_ args: [String], _ files: [String]) throws -> [String: [String: Any]] {
        var out: [String: [String: Any]] = [:]
        for chunk in stride(from: 0, to: files.count, by: 40).map({ Array(files[$0..<min($0 + 40, files.count)]) }) {
            let data = try run("exiftool", ["-j"] + args + chunk, accept: [1])
            let docs = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
            for d in docs { if let f = d["SourceFile"] as? String { out[f] = d } }
        }
        return out
    }
}

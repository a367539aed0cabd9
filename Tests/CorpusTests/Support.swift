import Foundation
import TestSupport

@testable import CorpusKit

/// Runs a tool and returns its standard output; a missing tool or a non-zero exit throws (a test failure).
func runTool(_ path: String, _ args: [String]) throws -> [UInt8] {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = args
    let out = Pipe()
    let err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    // Read before waiting so a large output cannot fill the pipe and block the child.
    let data = out.fileHandleForReading.readDataToEndOfFile()
    _ = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else {
        throw ToolError(message: "\(path) \(args.joined(separator: " ")) exited \(p.terminationStatus)")
    }
    return Array(data)
}

struct ToolError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// A 16-bit binary PPM (P6, maxval 65535, big-endian) as a RGBImage with values `sample / 65535 * scale`.
func readPPM16(_ b: [UInt8], scale: Double) -> RGBImage? {
    var fields: [String] = []
    var i = 0
    while fields.count < 4, i < b.count {
        while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
        var s = ""
        while i < b.count, !(b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09) {
            s.append(Character(UnicodeScalar(b[i])))
            i += 1
        }
        fields.append(s)
    }
    i += 1
    guard fields.count == 4, fields[0] == "P6", let w = Int(fields[1]), let h = Int(fields[2]), fields[3] == "65535",
        b.count - i >= w * h * 6
    else { return nil }
    var px = [Float](repeating: 0, count: w * h * 3)
    for k in 0..<(w * h * 3) {
        px[k] = Float(Double(UInt16(b[i + 2 * k]) << 8 | UInt16(b[i + 2 * k + 1])) / 65535 * scale)
    }
    return RGBImage(width: w, height: h, pixels: px)
}

/// The committed corpus folder.
let corpusRoot = Repo.root.appendingPathComponent("Corpus")

func readBytes(_ url: URL) throws -> [UInt8] { Array(try Data(contentsOf: url)) }

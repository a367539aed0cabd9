import Dispatch
import Foundation
import HEIF
import Synchronization
import Testing

@testable import HeifCodec

/// The primary's coded data at small's preset and RDOQ, with the tables `tables` (nil: none named).
private func coded(_ tables: String?, pixels: HeifPixels = texturedFrame(256, 128)) throws -> [UInt8] {
    var s = HeifEncodeSettings(quality: 55, bitDepth: 10, preset: "veryfast")
    s.x265 = ["ctu": "16", "rdoq-level": "2", "psy-rdoq": "0"]
    s.x265["lambda-file"] = tables
    let file = HEIFFile(bytes: try HeifEncoder.encode(pixels, settings: s, threads: 1))
    return try #require(file.primaryItemID.flatMap { file.payload(of: $0) }).map { $0 }
}

/// The built-in tables read from libx265 are x265 3.5's: λ = 2^(QP/6) (rounded to 4 decimals), λ² its 10-bit table
/// (16 × the 8-bit one, 0.608 at QP 0); the file of them reads back as the same doubles, and a scaled file scales λ²
/// only.
@Test func x265sBuiltInTablesAreReadAndWrittenExactly() throws {
    let t = try #require(X265Lambdas.tables)
    #expect(t.lambda.count == 70 && t.lambda2.count == 70)
    for q in 0..<70 { #expect(abs(t.lambda[q] - pow(2, Double(q) / 6)) <= 1e-4 * pow(2, Double(q) / 6)) }
    #expect(t.lambda2[0] == 0.608)
    func numbers(_ text: String) -> [Double] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .flatMap { $0.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces))! } }
    }
    #expect(numbers(try X265Lambdas.text("x265")) == t.lambda + t.lambda2)
    #expect(numbers(try X265Lambdas.text("lambda2x1.6")) == t.lambda + t.lambda2.map { $0 * 1.6 })
    #expect(X265Lambdas.lambda2Factor("lambda2x1.6") == 1.6)
    for bad in ["lambda2x0.1", "lambda2x9", "lambda2x", "/tmp/lambdas.txt", "x264"] {
        #expect(X265Lambdas.lambda2Factor(bad) == nil)
        #expect(throws: HeifError.self) { try coded(bad) }
    }
}

/// Named tables reach x265 (another stream), and x265's own come back after them: the process-wide tables a scaled
/// encode loads do not leak into the next encode, which codes what it coded before any was loaded.
@Test func scaledTablesReachX265AndDoNotLeakIntoTheNextEncode() throws {
    let before = try coded(nil)
    let scaled = try coded("lambda2x1.6")
    #expect(scaled != before)
    #expect(try coded(nil) == before)
    #expect(try coded("x265") == before)
    #expect(try coded("lambda2x1.6") == scaled)
    #expect(try coded(nil) == before)
}

/// Encoders of different tables started at once each code what they code alone (the gate keeps them apart); no
/// tables file is left in the temporary folder.
@Test func encodersOfDifferentTablesAtOnceCodeWhatTheyCodeAlone() throws {
    let names: [String?] = [nil, "lambda2x1.6", "lambda2x2", nil, "lambda2x1.6", "x265", "lambda2x2", nil]
    let alone = try Dictionary(uniqueKeysWithValues: Set(names.map { $0 ?? "x265" }).map { ($0, try coded($0)) })
    let results = Mutex<[Int: [UInt8]]>([:])
    DispatchQueue.concurrentPerform(iterations: names.count) { i in
        let bytes = (try? coded(names[i])) ?? []
        results.withLock { $0[i] = bytes }
    }
    let got = results.withLock { $0 }
    for (i, name) in names.enumerated() {
        let same = got[i] == alone[name ?? "x265"]
        #expect(same, "encode \(i) (\(name ?? "x265")) coded \(got[i]?.count ?? 0) bytes unlike alone")
    }
    let left = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
        .filter { $0.hasPrefix("readback-x265-") }
    #expect(left.isEmpty, "left behind: \(left)")
}

/// Only a 10-bit encode names tables: an 8-bit one given a `lambda-file` fails with a clear error (x265's 8-bit
/// tables are never loaded, so never need restoring).
@Test func an8BitEncodeTakesNoLambdaTables() throws {
    var s = HeifEncodeSettings(quality: 55, bitDepth: 8, preset: "ultrafast")
    s.x265 = ["lambda-file": "lambda2x1.6"]
    let px = HeifPixels.rgb8(width: 64, height: 64, samples: [UInt8](repeating: 90, count: 64 * 64 * 3))
    #expect(throws: HeifError.self) { try HeifEncoder.encode(px, settings: s, threads: 1) }
}

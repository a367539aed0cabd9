import Foundation
import FoundationXML
import ReportModel
import TestSupport
import Testing

@testable import Audit
@testable import ReportWriting

@Test func htmlMatchesGolden() {
    let html = HTMLRenderer.render(FixedReport.make(), thumbnails: FixedReport.thumbnails)
    #expect(Golden.check(html, named: "report.html") == nil)
    // Self-contained: no network references.
    #expect(!html.contains("http://") && !html.contains("https://"))
    #expect(html.contains("&lt;&amp;&gt;"))
    #expect(html.contains("src=\"data:image/png;base64,"))
}

/// Counts what the JUnit XML says, with Foundation's parser.
final class JUnitCounter: NSObject, XMLParserDelegate {
    var suiteTests = -1, suiteFailures = -1, testcases = 0, failures = 0
    var names: [String] = []
    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        switch name {
        case "testsuite":
            suiteTests = Int(attributes["tests"] ?? "") ?? -1
            suiteFailures = Int(attributes["failures"] ?? "") ?? -1
        case "testcase":
            testcases += 1
            names.append(attributes["name"] ?? "")
        case "failure": failures += 1
        default: break
        }
    }
}

@Test func junitParsesAndItsCountsEqualTheJSON() throws {
    let r = FixedReport.make()
    let xml = JUnitRenderer.render(r)
    #expect(Golden.check(xml, named: "junit.xml") == nil)
    let parser = XMLParser(data: Data(xml.utf8))
    let counter = JUnitCounter()
    parser.delegate = counter
    #expect(parser.parse(), "junit.xml does not parse: \(String(describing: parser.parserError))")
    let json = try JSONSerialization.jsonObject(with: Data(r.jsonText().utf8)) as? [String: Any]
    let summary = json?["summary"] as? [String: Any]
    #expect(counter.testcases == summary?["files"] as? Int)
    #expect(counter.suiteTests == summary?["files"] as? Int)
    #expect(counter.failures == summary?["failed"] as? Int)
    #expect(counter.suiteFailures == summary?["failed"] as? Int)
    #expect(counter.names == r.files.map(\.name))
}

@Test func pngIsWellFormed() throws {
    let png = try #require(PNG.encode(width: 3, height: 2, channels: 1, samples: [0, 128, 255, 1, 2, 3]))
    let b = [UInt8](png)
    #expect(Array(b.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    // Known check values: CRC-32 of "IEND" and Adler-32 of "Wikipedia".
    #expect(PNG.crc32(Array("IEND".utf8)) == 0xAE42_6082)
    #expect(PNG.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
    #expect(Array(b.suffix(8)) == [0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])
    #expect(PNG.encode(width: 3, height: 2, channels: 1, samples: [0]) == nil)
    // A large image spans several stored blocks.
    let big = try #require(
        PNG.encode(width: 300, height: 300, channels: 3, samples: Array(repeating: 7, count: 270_000)))
    #expect(big.count > 270_000)
}

/// The PNG decodes with an independent decoder: Python's zlib, when the image is inflated.
@Test func pngInflatesWithZlib() throws {
    let samples: [UInt8] = (0..<(20 * 10 * 3)).map { UInt8($0 % 251) }
    let png = try #require(PNG.encode(width: 20, height: 10, channels: 3, samples: samples))
    let dir = Repo.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("t.png")
    try png.write(to: file)
    let script = """
        import sys, zlib, struct
        b = open(sys.argv[1], 'rb').read()
        i = 8; idat = b''
        while i < len(b):
            n = struct.unpack('>I', b[i:i+4])[0]; t = b[i+4:i+8]
            if zlib.crc32(b[i+4:i+8+n]) != struct.unpack('>I', b[i+8+n:i+12+n])[0]: sys.exit('bad crc')
            if t == b'IDAT': idat += b[i+8:i+8+n]
            i += 12 + n
        raw = zlib.decompress(idat)
        print(raw.hex())
        """
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    p.arguments = ["-c", script, file.path]
    let pipe = Pipe()
    p.standardOutput = pipe
    try p.run()
    let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    #expect(p.terminationStatus == 0)
    var expected = [UInt8]()
    for y in 0..<10 {
        expected.append(0)
        expected += samples[(y * 60)..<((y + 1) * 60)]
    }
    #expect(out.trimmingCharacters(in: .whitespacesAndNewlines) == expected.map { String(format: "%02x", $0) }.joined())
}

@Test func thumbnailScalesDownAndKeepsValues() throws {
    let px = Pixels(width: 400, height: 200, channels: 1, bitDepth: 10, samples: Array(repeating: 1023, count: 80_000))
    let uri = try #require(Thumbnailer.dataURI(px, maxSide: 100))
    let png = try #require(Data(base64Encoded: String(uri.dropFirst("data:image/png;base64,".count))))
    let b = [UInt8](png)
    // IHDR width/height at bytes 16..<24.
    #expect(Array(b[16..<24]) == [0, 0, 0, 100, 0, 0, 0, 50])
    #expect(b.contains(255))
    #expect(Thumbnailer.dataURI(Pixels(width: 0, height: 0, channels: 1, bitDepth: 8, samples: [])) == nil)
}

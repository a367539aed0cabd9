import Foundation
import RawDecoder
import TestSupport
import Testing

/// LibRaw opening a RAW the caller already read (`libraw_open_buffer`) identifies and decodes it exactly as opening
/// the file by path does: the same metadata and the same frame, row by row.
@Test(arguments: [true, false])
func aRAWDecodedFromMemoryIsTheFileDecodedByPath(bayer: Bool) throws {
    var o = TestDNG.Options()
    o.bayer = bayer
    let dng = TestDNG.make(o) { x, y in (Double(x) / 512, Double(y) / 384, Double(x + y) / 900) }
    let dir = Repo.temporaryDirectory("rawdecoder-memory")
    defer { try? FileManager.default.removeItem(at: dir) }
    let url = dir.appendingPathComponent("chart.dng")
    try Data(dng).write(to: url)
    let (byPath, pathFrame) = try LibRawDecoder.decodeInPlace(url)
    let (inMemory, memoryFrame) = try LibRawDecoder.decodeInPlace(bytes: dng, name: "chart.dng")
    #expect(inMemory == byPath)
    #expect(inMemory.fileSize == dng.count)
    #expect(memoryFrame.width == pathFrame.width && memoryFrame.height == pathFrame.height)
    var a = [UInt16](repeating: 0, count: 3 * pathFrame.width)
    var b = a
    var differing = 0
    for y in 0..<pathFrame.height {
        a.withUnsafeMutableBufferPointer { pathFrame.copyRow(y, into: $0) }
        b.withUnsafeMutableBufferPointer { memoryFrame.copyRow(y, into: $0) }
        if a != b { differing += 1 }
    }
    #expect(differing == 0, "\(differing) rows differ")
}

/// A file LibRaw does not know fails from memory as by path, naming the file and the call.
@Test func notARAWFromMemoryIsAOneLineErrorNamingTheFile() {
    #expect {
        _ = try LibRawDecoder.decodeInPlace(bytes: Array("hello, not a raw file\n".utf8), name: "text.nef")
    } throws: { e in
        guard let e = e as? RawDecodeError, case .libraw(let f, _, _) = e.reason else { return false }
        return f == "libraw_open_buffer" && e.description.hasPrefix("text.nef: ") && !e.description.contains("\n")
    }
}

import Foundation
import RawDecoder
import Testing

/// A frame over shared memory (a worker's frame, read in place by the parent) lets go of the pages of the rows a
/// render has passed (`releasePages(before:)`): they leave this process's resident memory, so the parent never holds
/// the whole frame beside the encoders, and every row reads the same afterwards.
@Test func aSharedFrameLetsGoOfThePagesOfRowsBeforeAndReadsTheSame() throws {
    let (w, h) = (1024, 64)  // 6 KiB a row: 96 pages
    let bytes = w * h * 6
    let mapped = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0)
    let p = try #require(mapped == MAP_FAILED ? nil : mapped)
    defer { munmap(p, bytes) }
    let samples = p.bindMemory(to: UInt16.self, capacity: w * h * 3)
    for i in 0..<(w * h * 3) { samples[i] = UInt16(truncatingIfNeeded: i &* 2_654_435_761 >> 7) }
    let frame = RawFrame(
        packedRGB: UnsafePointer(samples), width: w, height: h, workingSpace: .proPhoto, owner: Token(),
        sharedView: true)
    let before = allRows(frame)
    #expect(residentKiB(p) == bytes / 1024)
    frame.releasePages(before: h / 2)
    // Half the rows' pages go; the page the first row after them starts in stays.
    #expect(residentKiB(p) <= bytes / 2048 + 4)
    #expect(residentKiB(p) >= bytes / 2048)
    frame.releasePages(before: h)
    #expect(residentKiB(p) == 0)
    #expect(allRows(frame) == before, "rows read differently after their pages were let go")
    // Over this process's own memory, nothing is let go (its pages would read as zeros).
    let own = RawFrame(packedRGB: UnsafePointer(samples), width: w, height: h, workingSpace: .proPhoto, owner: Token())
    own.releasePages(before: h)
    #expect(residentKiB(p) == bytes / 1024)
}

private final class Token {}

/// Every row of `f`, copied.
private func allRows(_ f: RawFrame) -> [UInt16] {
    var all = [UInt16](repeating: 0, count: 3 * f.width * f.height)
    all.withUnsafeMutableBufferPointer { b in
        for y in 0..<f.height {
            f.copyRow(y, into: UnsafeMutableBufferPointer(rebasing: b[(3 * f.width * y)..<(3 * f.width * (y + 1))]))
        }
    }
    return all
}

/// The resident KiB of this process's mapping that starts at `p` (/proc/self/smaps).
private func residentKiB(_ p: UnsafeMutableRawPointer) -> Int {
    let start = String(UInt(bitPattern: p), radix: 16)
    // Read to the end: a /proc file reports no size, and String(contentsOfFile:) stops after its first read.
    guard let data = FileHandle(forReadingAtPath: "/proc/self/smaps")?.readDataToEndOfFile() else { return -1 }
    let smaps = String(decoding: data, as: UTF8.self)
    var inside = false
    for line in smaps.split(separator: "\n") {
        if let dash = line.firstIndex(of: "-"), line[..<dash].allSatisfy(\.isHexDigit) {
            inside = line[..<dash].drop { $0 == "0" } == start
        } else if inside, line.hasPrefix("Rss:") {
            return Int(line.split(separator: " ")[1]) ?? -1
        }
    }
    return -1
}

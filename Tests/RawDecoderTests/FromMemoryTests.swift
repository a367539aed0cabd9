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
    let differing = differingRows(pathFrame, memoryFrame)
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

/// A packed frame (the rows a worker copies into shared memory) lends each row in place, the same samples
/// `copyRow` copies, for a frame decoded with each of the orientations that turn or mirror it; LibRaw's own 4-sample
/// buffer lends none.
@Test(arguments: [1, 3, 6, 8] as [UInt16])
func aPackedFrameLendsTheRowsCopyRowCopies(orientation: UInt16) throws {
    let frame = try chartFrame(orientation: orientation)
    for y in [0, frame.height / 2, frame.height - 1] { #expect(frame.row(y) == nil) }
    let n = 3 * frame.width
    let packed = UnsafeMutableBufferPointer<UInt16>.allocate(capacity: n * frame.height)
    defer { packed.deallocate() }
    for y in 0..<frame.height {
        frame.copyRow(y, into: UnsafeMutableBufferPointer(rebasing: packed[(y * n)..<((y + 1) * n)]))
    }
    let view = RawFrame(
        packedRGB: UnsafePointer(packed.baseAddress!), width: frame.width, height: frame.height,
        workingSpace: frame.workingSpace, owner: frame)
    var copied = [UInt16](repeating: 0, count: n)
    var differing = 0
    for y in 0..<frame.height {
        copied.withUnsafeMutableBufferPointer { frame.copyRow(y, into: $0) }
        let lent = try #require(view.row(y))
        if Array(UnsafeBufferPointer(start: lent, count: n)) != copied { differing += 1 }
    }
    #expect(differing == 0, "\(differing) rows differ")
    #expect(frame.width != frame.height)
}

/// A frame over LibRaw's image as another process would hand it over (`RawFrame(libRawImage:...)`, the RAW worker's
/// frame arena) reads every row as the decoder's own frame does, for each orientation that turns or mirrors it.
@Test(arguments: [1, 3, 6, 8] as [UInt16])
func aFrameOverLibRawsImageReadsAsTheDecodersFrame(orientation: UInt16) throws {
    let frame = try chartFrame(orientation: orientation)
    let image = try #require(frame.libRawImage)
    let view = try #require(
        RawFrame(
            libRawImage: image.base, count: 4 * frame.width * frame.height, layout: image.layout,
            width: frame.width, height: frame.height, workingSpace: frame.workingSpace, owner: frame))
    #expect(view.libRawImage?.layout == image.layout)
    let differing = differingRows(frame, view)
    #expect(differing == 0, "\(differing) rows differ")
    #expect(frame.width != frame.height)
}

/// A layout that would read outside the memory it came with (one sample short, a negative origin, steps whose
/// products overflow) is refused: the layout comes from a worker, which is not trusted.
@Test func aLibRawImageLayoutReachingOutsideItsMemoryIsRefused() throws {
    let dng = TestDNG.make(TestDNG.Options()) { x, y in (Double(x) / 512, Double(y) / 384, 0.2) }
    let (_, frame) = try LibRawDecoder.decodeInPlace(bytes: dng, name: "chart.dng")
    let image = try #require(frame.libRawImage)
    let (w, h) = (frame.width, frame.height)
    func view(_ layout: RawFrame.Layout, count: Int) -> RawFrame? {
        RawFrame(
            libRawImage: image.base, count: count, layout: layout, width: w, height: h,
            workingSpace: frame.workingSpace, owner: frame)
    }
    #expect(view(image.layout, count: 4 * w * h) != nil)
    #expect(view(image.layout, count: 4 * w * h - 1) == nil)
    #expect(view(RawFrame.Layout(origin: -1, colStep: 1, rowStep: w), count: 4 * w * h) == nil)
    #expect(view(RawFrame.Layout(origin: w * h - 1, colStep: -1, rowStep: -w), count: 4 * w * h) != nil)
    #expect(view(RawFrame.Layout(origin: 0, colStep: Int.max / 2, rowStep: w), count: 4 * w * h) == nil)
    #expect(view(RawFrame.Layout(origin: 0, colStep: 1, rowStep: Int.min / 2), count: 4 * w * h) == nil)
}

/// The generated chart decoded in place with EXIF orientation `orientation`.
private func chartFrame(orientation: UInt16) throws -> RawFrame {
    var o = TestDNG.Options()
    o.orientation = orientation
    let dng = TestDNG.make(o) { x, y in (Double(x) / 512, Double(y) / 384, Double(x + y) / 900) }
    return try LibRawDecoder.decodeInPlace(bytes: dng, name: "chart.dng").1
}

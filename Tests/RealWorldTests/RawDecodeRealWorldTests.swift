import Foundation
import TestSupport
import Testing

@testable import RawDecoder

/// Readback's LibRaw (scripts/libraw/readback_loops.cpp: the packed-DNG reader, the white-balance and colour loops
/// on every core, AHD by tile) against stock LibRaw 0.22 on the real RAWs: every frame sample for sample, or the
/// same refusal. Real cameras' files bring what generated ones do not: 14-bit packed rows from Magic Lantern, lossless
/// and lossy JPEG tiles, masked areas, black levels per channel, frames of many AHD tiles. In process, as the in-repo
/// test does: the DNGs and the one NEF only (the corpus's fuzzer proofs of concept are for exiv2, and a decoder
/// is run on them in a worker, never here).
@Test func realRAWsDecodeAsStockLibRaw() throws {
    let files = try RealWorldCorpus.files(["dng", "nef"]).filter {
        $0.pathExtension.lowercased() == "dng" || $0.lastPathComponent.hasPrefix("mei_")
    }
    #expect(files.count >= 6)
    var decoded = 0
    for file in files {
        let name = file.lastPathComponent
        let bytes = Array(try Data(contentsOf: file))
        func frame(upstream: Bool) -> Result<RawFrame, any Error> {
            Result {
                let d = LibRawDecoder(upstreamLoops: upstream)
                _ = try d.open(bytes: bytes, name: name)
                return try d.renderInPlace()
            }
        }
        switch (frame(upstream: false), frame(upstream: true)) {
        case (.success(let ours), .success(let stock)):
            decoded += 1
            #expect(ours.width == stock.width && ours.height == stock.height, "\(name)")
            #expect(differingRows(ours, stock) == 0, "\(name)")
        case (.failure(let ours), .failure(let stock)):
            #expect("\(ours)" == "\(stock)", "\(name)")
        case (let ours, let stock):
            Issue.record("\(name): Readback's LibRaw \(ours), stock LibRaw \(stock)")
        }
    }
    // The 550D (packed 14-bit), both D5000s, the Sony and the 6D (lossy JPEG) decode; the truncated DNGs and the
    // Capture NX-edited D70s NEF are refused, each the same way by both.
    #expect(decoded >= 5)
}

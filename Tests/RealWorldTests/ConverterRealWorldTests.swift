import Foundation
import RawDecoder
import Testing

/// Every RAW in the shared corpus: the one real DNG decodes, every stub/truncated file is a one-line error.
@Test func realWorldRawDecoderSeparatesRealDataFromStubs() throws {
    let raws = try RealWorldCorpus.files(["dng", "cr2", "cr3", "crw", "nef", "arw", "raf", "orf", "rw2", "pef", "mrw", "iiq", "x3f"])
    #expect(raws.count >= 20, "expected the 20 corpus RAWs, found \(raws.count)")
    for url in raws {
        do {
            let (meta, img) = try RawDecoder.decode(url, options: RawDecodeOptions(halfSize: true))
            #expect(url.lastPathComponent == "photoprism_canon_eos_6d.dng", "\(url.lastPathComponent) decoded: \(meta)")
            #expect(img.width > 0 && img.height > 0)
        } catch let e as RawDecodeError {
            print("REJECT \(e)")
            #expect(url.lastPathComponent != "photoprism_canon_eos_6d.dng", "\(e)")
            #expect(!e.description.contains("\n"))
            #expect(e.description.hasPrefix(url.lastPathComponent + ": "))
        }
    }
}

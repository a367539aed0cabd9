import CorpusKit
import Foundation
import RenderCheck
import RenderIO
import TestSupport
import Testing

@testable import Batch
@testable import Converter

/// The production converter, except that sources named after a deliberate failure (`cast-rb-40.dng`, `constant.dng`)
/// come out with that failure in their pixels: what a faulty render would write.
struct FaultyRenderConverter: ItemConverter {
    func convert(source: URL, to output: URL, options: ConvertOptions) throws -> ConversionResult {
        let image = try HEICConverter.convert(source: source, options: options, decoders: .inProcess)
        let stem = source.deletingPathExtension().lastPathComponent
        let bytes =
            try DeliberateFailure(rawValue: stem).map { try OutputImage.broken(image.bytes, $0, decoders: .inProcess) }
            ?? image.bytes
        try FileOps.writeNewFile(bytes, to: output.path)
        return image.result
    }
}

/// `readback convert --remove-originals delete` runs the render check before it calls a file done: the batch's own
/// verifier (`ConvertAndAudit`'s `AuditVerifier`, the audit against the source's embedded preview) keeps the
/// original of a colour-cast output (partial, named `render.cast`) and fails a blank one (`render.blank`, no output
/// left under the final name), while the faithful conversion of the same capture is verified and its original removed.
@Test func aCastOrBlankOutputKeepsTheOriginalWhateverRemovalSays() async throws {
    let dir = Repo.temporaryDirectory("readback-render-veto")
    defer { try? FileManager.default.removeItem(at: dir) }
    let (src, out) = (dir.appendingPathComponent("src"), dir.appendingPathComponent("out"))
    try FileManager.default.createDirectory(at: src, withIntermediateDirectories: true)
    // Nothing above white, so the output needs no gain map; a trailing byte of its own makes each source distinct.
    let recipe = try #require(Corpus.tiny.first { $0.file == "dng/chart-sdr-rggb-14bit-o1.dng" })
    for (i, name) in ["good", DeliberateFailure.castRedBlue.rawValue, DeliberateFailure.constant.rawValue].enumerated()
    {
        try Data(recipe.dngBytes() + [UInt8(i)]).write(to: src.appendingPathComponent("\(name).dng"))
    }
    let config = BatchConfiguration(
        sources: [src.path], outputRoot: out.path, jobs: 1, removal: RemovalPermit(parsingFlagValue: "delete"),
        environment: ["XDG_DATA_HOME": dir.path, "HOME": dir.path])
    let cap = Captured()
    let s = await BatchEngine(
        configuration: config, converter: FaultyRenderConverter(),
        verifier: ConvertAndAudit.make(decoders: .inProcess).1,
        decoders: .inProcess, out: cap.outSink, err: cap.errSink
    ).run()
    let exists = { (name: String) in FileManager.default.fileExists(atPath: src.appendingPathComponent(name).path) }
    #expect(s.clean == 1 && s.removed == 1 && s.kept == 1 && s.failed == 1, "\(cap.out)")
    #expect(!exists("good.dng"))
    #expect(exists("cast-rb-40.dng") && exists("constant.dng"))
    #expect(cap.out.contains("render.cast: the output has a colour cast against the embedded preview"), "\(cap.out)")
    #expect(cap.out.contains("render.blank: the output is a blank frame"), "\(cap.out)")
    #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("constant.heic").path))
}

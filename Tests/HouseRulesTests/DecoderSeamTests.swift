import Foundation
import Testing

/// Every C library call on a file's bytes goes through `Decoders` (which the CLI makes workers): outside the wrapper modules
/// and Isolation itself, no code of `readback` names a decoding entry point. The developer programs (readback-ladder,
/// readback-render: built by `make bench`, not installed) are outside `readback`'s process and may decode in
/// theirs. libheif's encoder stays in the parent: it encodes pixels Readback made (docs/security.md).
let decodingCall =
    #"\bLibRawDecoder\b|\bHeifDecoder\.(decode|reduced)|\bJPEGDecoder\.(decode|size)\(|\bAVIFDecoder\.decode"#
    + #"|\bJXL\.decode|\bJXLDNG\.uncompressed|\bExiv2\.(read|decode|previews|build)"#
    + #"|\b(libraw_|heif_context_read|heif_decode|tjDecompress|avifDecoder|JxlDecoder|rb_exiv2_)"#

/// The modules that may call a decoder directly: its wrapper, the worker side (Isolation), the C shims, and the
/// developer programs.
let mayDecodeInProcess: Set<String> = [
    "RawDecoder", "HeifCodec", "JPEGCodec", "AVIFCodec", "JXLCodec", "Exiv2Bridge", "Isolation", "CExiv2Shim",
    "CIsolation", "QualityLadder", "RenderBench",
]

/// The `Sources/LAYER/MODULE/…` files of `files` that name a decoding entry point outside comments, as `path:line`.
func directDecodes(in files: [(path: String, text: String)], allowed: Set<String>) -> [String] {
    let call = try! Regex(decodingCall)
    return files.flatMap { f -> [String] in
        let parts = f.path.split(separator: "/")
        guard parts.count > 3, f.path.hasSuffix(".swift"), !allowed.contains(String(parts[2])) else { return [] }
        return f.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { n, line in
            let code = line.trimmingCharacters(in: .whitespaces)
            guard !code.hasPrefix("//"), line.contains(call) else { return nil }
            return "\(f.path):\(n + 1)"
        }
    }
}

@Test func everyDecodeOfAFilesBytesGoesThroughAWorker() throws {
    let files = try sourceFiles()
    let found = directDecodes(in: files, allowed: mayDecodeInProcess)
    #expect(found.isEmpty, "call a `Decoders` (handed in by the caller) instead:\n\(found.joined(separator: "\n"))")
    // The rule sees a direct call where one is: the developer programs have some.
    let tools = directDecodes(in: files, allowed: mayDecodeInProcess.subtracting(["QualityLadder"]))
    #expect(!tools.isEmpty, "the scan finds no direct decode even in readback-ladder: the pattern is broken")
}

@Test func directDecodesAreRecognised() {
    let file = (
        path: "Sources/6-Stages/Audit/X.swift",
        text: "let a = try HeifDecoder.decodePrimary(b)\n// HeifDecoder.decodePrimary in a comment\n"
            + "let v = AVIFDecoder.shortVersion\nlet d = try Exiv2.read(bytes: b, label: nil)\nlet m = JPEGDecoder.maxPixels"
    )
    #expect(
        directDecodes(in: [file], allowed: []) == [
            "Sources/6-Stages/Audit/X.swift:1", "Sources/6-Stages/Audit/X.swift:4",
        ])
    #expect(directDecodes(in: [file], allowed: ["Audit"]).isEmpty)
}

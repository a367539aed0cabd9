import Findings
import Foundation
import HEIF
import HeifCodec
import Isolation
import MetadataIO
import RenderIO
import ReportModel
import ReportWriting

/// The per-file checks, each a function over a shared context, run in a fixed order.
enum Checks {
    struct Context {
        let job: AuditJob
        let output: [UInt8]
        let options: AuditOptions
        /// The decoders of this file's work (its own `--file-timeout`).
        let decoders: any Decoders
        var findings: [Finding]
        var diffRows: [DiffRow] = []
        /// The pair as library entries (set by `FileFactsCheck`).
        var fileFacts: [FileFactRow]? = nil
        var gainMaps: [GainMapResult] = []
        var decode: [DecodeResult] = []
        /// Gain maps decoded by the gain-map check, appended after the primary by the decode check.
        var gainMapDecodes: [DecodeResult] = []
        var thumbnails = Thumbnails()
        /// The primary image's RGB pixels, when the decode made them (thumbnails, or a reference to compare with).
        var outputPixels: HeifDecodedImage? = nil
        /// The Exif-style orientation still to apply to `outputPixels` to show them as a HEIF reader does: 1 when
        /// libheif decoded the whole file (it applied irot/imir), the primary's own transforms when it was decoded
        /// re-wrapped alone (a standalone file carries none).
        var outputPixelsOrientation = 1
        /// The output parsed (set by the container check).
        var file: HEIFFile? = nil
        /// The source, read and parsed once by the auditor (nil without a source, or without an output to compare).
        let source: InputFile?
        /// The output as the metadata reader reads it, made once from `output` and `file` by the first check that
        /// needs it (`outputInput()`).
        var outputFile: InputFile? = nil
        /// The source's reference render when the caller already found it (the converter's camera look).
        var reference: ReferenceLookup? = nil

        /// The source's bytes.
        var sourceBytes: [UInt8]? { source?.bytes }
        /// The source's container, when it is a HEIF file (an ISOBMFF `ftyp` whose major brand is of the family).
        var sourceHEIF: HEIFFile? { source?.bytes.map(Brands.isHEIF) == true ? source?.heif : nil }

        init(
            job: AuditJob, output: [UInt8], source: InputFile?, options: AuditOptions, findings: [Finding],
            decoders: any Decoders
        ) {
            self.job = job
            self.decoders = decoders
            self.output = output
            self.source = source
            self.options = options
            self.findings = findings
        }

        /// The output for the metadata reader: its bytes and container, read and parsed once.
        mutating func outputInput(_ url: URL) -> InputFile {
            if let f = outputFile { return f }
            let f = InputFile(url: url, bytes: output, heif: file, decoders: decoders)
            outputFile = f
            return f
        }

        /// Adds a finding at the catalogue's severity for `code`.
        mutating func add(_ code: FindingCode, _ message: String, _ evidence: Evidence? = nil) {
            findings.append(Finding(code, message: message, evidence: evidence))
        }

        /// Adds a finding at a severity other than the catalogue's (the call site says why).
        mutating func add(_ code: FindingCode, _ severity: Severity, _ message: String, _ evidence: Evidence? = nil) {
            findings.append(Finding(code: code, severity: severity, message: message, evidence: evidence))
        }
    }

    static func run(_ ctx: inout Context) {
        if let format = otherFormat(&ctx) {
            notHEIF(&ctx, format)
            return
        }
        FileFactsCheck.run(&ctx)
        container(&ctx)
        if sequenceOnly(&ctx) { return }
        conformance(&ctx)
        let judgePixels = !unsupportedEssential(&ctx) && !overlayPrimary(&ctx)
        // The primary decode (the slowest check) runs beside the others; its findings are added last, as before.
        // With a source, the same thread first finds the source's own rendering for the render check, from the
        // source already read and parsed (a RAW's previews came with exiv2's one reading of it).
        var lookUp: (@Sendable () -> ReferenceLookup)? = nil
        if ctx.job.source != nil, let found = ctx.reference {
            lookUp = { found }
        } else if ctx.job.source != nil {
            let src = ctx.source
            lookUp = {
                guard let src, let bytes = src.bytes else { return .none(reason: "the source cannot be read") }
                return ReferenceExtractor.reference(
                    bytes: bytes, path: src.path, heif: src.heif, exiv2: src.exiv2, decoders: src.decoders)
            }
        }
        let primary =
            ctx.options.decode && ctx.file != nil && judgePixels
            ? PrimaryDecode(
                ctx.output, thumbnails: ctx.options.thumbnails, item: ctx.file?.primaryItemID,
                pixels: ctx.file.flatMap { f in f.primaryItemID.flatMap(f.imageSize(of:)) }.map {
                    Int($0.width) * Int($0.height)
                },
                avifOrientation: ctx.file.flatMap { f in isAVIF(f) ? f.primaryItemID.map(f.orientation(of:)) ?? 1 : nil
                },
                file: ctx.file, lookUp: lookUp, decoders: ctx.decoders) : nil
        gainMaps(&ctx)
        signalling(&ctx)
        metadata(&ctx)
        orientation(&ctx)
        if let primary {
            decode(&ctx, primary)
            render(&ctx, primary.reference)
        }
    }
}

extension Checks {
    /// The output's format when it is a readable image of another family (JPEG, TIFF, a RAW, a Canon CR3): a file
    /// with no ISOBMFF `ftyp` naming a HEIF brand, whose metadata exiv2 reads. Nil for a HEIF-family file, and for
    /// bytes no reader recognises (a HEIF that lost its `ftyp` stays with the container checks, which say why).
    static func otherFormat(_ ctx: inout Context) -> String? {
        guard !Brands.isHEIF(ctx.output), let url = ctx.job.output else { return nil }
        if let set = try? MetadataReader.read(ctx.outputInput(url), sidecars: false) { return set.format }
        return Source.otherMagic(ctx.output)
    }

    /// An output that is not a HEIF-family file: the container, signalling and decode checks do not apply; the
    /// metadata and orientation are still judged against the source, and a JPEG's gain map (MPF, Ultra HDR, ISO
    /// 21496-1, Apple) too. A warning, since the auditor was asked about a file it audits only in part.
    static func notHEIF(_ ctx: inout Context, _ format: String) {
        let jpeg = Source.isJPEG(ctx.output)
        ctx.add(
            .outputNotHeif,
            "the output is not a HEIF-family file (\(format)): only its metadata, orientation\(jpeg ? " and gain map" : "") were compared",
            Evidence(expected: "a HEIF-family file (ftyp with a HEIF brand)", actual: format))
        FileFactsCheck.run(&ctx)
        if jpeg { jpegGainMaps(&ctx) }
        metadata(&ctx)
    }
}

/// Facts about a source file.
enum Source {
    /// True when the bytes start with a JPEG SOI marker.
    static func isJPEG(_ b: [UInt8]) -> Bool { b.count >= 2 && b[0] == 0xFF && b[1] == 0xD8 }

    /// The format of an image of another family by its first bytes (for files exiv2 does not read): an ISOBMFF file
    /// of another brand (Canon CR3, MP4), JPEG, TIFF and the TIFF-like RAWs (Panasonic RW2 and Olympus ORF by their own
    /// magic), Sigma X3F, Fujifilm RAF, Minolta MRW.
    static func otherMagic(_ b: [UInt8]) -> String? {
        guard b.count >= 12 else { return nil }
        if b[4] == 0x66, b[5] == 0x74, b[6] == 0x79, b[7] == 0x70 {
            return "ISOBMFF '\(String(decoding: b[8..<12], as: UTF8.self))'"
        }
        if isJPEG(b) { return "image/jpeg" }
        let magic: [(String, [UInt8])] = [
            ("TIFF", [0x49, 0x49, 0x2A, 0]), ("TIFF", [0x4D, 0x4D, 0, 0x2A]), ("X3F", Array("FOVb".utf8)),
            ("RAF", Array("FUJIFILM".utf8)), ("MRW", [0, 0x4D, 0x52, 0x4D]), ("RW2", [0x49, 0x49, 0x55, 0]),
            ("ORF", Array("IIRO".utf8)), ("ORF", Array("IIRS".utf8)), ("ORF", Array("MMOR".utf8)),
        ]
        return magic.first { b.starts(with: $0.1) }?.0
    }
}

import FileContent
import Findings
import Foundation
import HEIF
import Hashing
import Isolation
import MetadataIO
import RenderIO
import ReportModel
import ReportWriting

/// Audits one job: reads the output back and checks it, against its source when there is one.
///
/// Pure composition of the container (HEIF), gain-map (GainMap), metadata (Metadata, MetadataIO) and decoding
/// (HeifCodec) layers; every finding goes through the policy before it is reported.
public struct FileAuditor: Sendable {
    public let options: AuditOptions
    /// The run's decoders; each job gets its own (`forFile()`: through workers, one `--file-timeout` per pair).
    public let decoders: any Decoders

    public init(options: AuditOptions, decoders: any Decoders) {
        self.options = options
        self.decoders = decoders
    }

    /// Audits one job.
    /// - Parameter job: the output (and source) to read.
    /// - Returns: the file's result; problems reading files become findings, never throws.
    public func audit(_ job: AuditJob) -> FileResult { auditWithThumbnails(job).result }

    /// Audits one job and keeps the thumbnails its decoding made (with `options.thumbnails`).
    /// - Parameter job: the output (and source) to read.
    /// - Returns: the file's result, and its thumbnails (empty when none were made).
    public func auditWithThumbnails(_ job: AuditJob) -> (result: FileResult, thumbnails: Thumbnails) {
        auditWithThumbnails(job, read: nil, decoders: decoders.forFile())
    }

    /// Audits one job whose source is already in memory, as the batch's read-back has it: the converter read the
    /// source once, and decoded its reference render once for the camera look.
    /// - Parameters:
    ///   - job: the output and source.
    ///   - sourceBytes: the whole source.
    ///   - reference: the source's reference render as already found, or nil to find it here (from `sourceBytes`).
    ///   - decoders: the file's decoders (the conversion's: its read-back shares the file's `--file-timeout`).
    /// - Returns: the file's result.
    public func audit(_ job: AuditJob, sourceBytes: [UInt8], reference: ReferenceLookup?, decoders: any Decoders)
        -> FileResult
    {
        auditWithThumbnails(job, read: (sourceBytes, reference), decoders: decoders).result
    }

    func auditWithThumbnails(
        _ job: AuditJob, read: (bytes: [UInt8], reference: ReferenceLookup?)?, decoders: any Decoders
    ) -> (result: FileResult, thumbnails: Thumbnails) {
        var findings: [Finding] = []
        var sourceBytes: UInt64? = nil
        if let s = job.source {
            sourceBytes = Self.fileSize(s)
            if sourceBytes == nil {
                findings.append(
                    Finding(
                        .inputUnreadable,
                        message: "the source cannot be read: \(job.sourceDisplay ?? s.path)"))
            }
        }
        guard let out = job.output else {
            findings.append(
                Finding(
                    .outputMissing,
                    message: "no output was found for this source",
                    evidence: Evidence(expected: "an output with the same stem")))
            let r = FileResult(
                name: job.name, source: job.sourceDisplay, sourceBytes: sourceBytes,
                findings: options.policy.apply(findings))
            return (r, Thumbnails())
        }
        guard let outSize = Self.fileSize(out), let bytes = try? FileContent.read(path: out.path) else {
            findings.append(
                Finding(
                    .inputUnreadable,
                    message: "the output cannot be read: \(job.outputDisplay ?? out.path)"))
            let r = FileResult(
                name: job.name, source: job.sourceDisplay, output: job.outputDisplay, sourceBytes: sourceBytes,
                findings: options.policy.apply(findings))
            return (r, Thumbnails())
        }
        // The bytes the checks parse are the bytes hashed (no second read), through libcrypto's SHA-256 (Hashing).
        let digest = options.digest ? FileSHA256.hex(bytes: bytes) : nil
        let result = FileResult(
            name: job.name, source: job.sourceDisplay, output: job.outputDisplay, sourceBytes: sourceBytes,
            outputBytes: outSize, sha256: digest)
        // Each file is read once and parsed once, here; every check is handed the parse. A RAW source's previews
        // are listed by the same exiv2 reading when the render check will want them.
        let source = job.source.map { url in
            read.map {
                InputFile(
                    url: url, bytes: $0.bytes, previews: options.decode && $0.reference == nil, decoders: decoders)
            } ?? InputFile(reading: url, previews: options.decode, decoders: decoders)
        }
        var checked = Checks.Results(findings: findings)
        FileChecks(
            job: job, output: bytes, source: source, options: options, decoders: decoders, reference: read?.reference
        ).run(&checked)
        if let r = result.sizeRatio {
            if let lo = options.policy.sizeRatioMin, r < lo {
                checked.findings.append(
                    Finding(
                        .sizeRatio,
                        message: "the output is \(r) × the source's size, below the policy's \(lo)",
                        evidence: Evidence(expected: "≥ \(lo)", actual: String(r))))
            }
            if let hi = options.policy.sizeRatioMax, r > hi {
                checked.findings.append(
                    Finding(
                        .sizeRatio,
                        message: "the output is \(r) × the source's size, above the policy's \(hi)",
                        evidence: Evidence(expected: "≤ \(hi)", actual: String(r))))
            }
        }
        let rebuilt = FileResult(
            name: job.name, source: job.sourceDisplay, output: job.outputDisplay, sourceBytes: sourceBytes,
            outputBytes: outSize, sha256: digest, findings: options.policy.apply(checked.findings),
            metadata: checked.diffRows, gainMaps: checked.gainMaps, decode: checked.decode,
            fileFacts: checked.fileFacts)
        return (rebuilt, checked.thumbnails)
    }

    /// The size of the regular file at `url`, through a symlink (the audit reads what a reader would open); nil for
    /// anything else.
    static func fileSize(_ url: URL) -> UInt64? {
        var st = stat()
        guard stat(url.path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return UInt64(st.st_size)
    }
}

/// One file's checks in their fixed order. Each check is handed what it needs, from the file as read and from the
/// checks before it (the container as parsed, the gain maps found, the primary decoded), and what it makes is gathered
/// into the file's `Checks.Results` in report order.
struct FileChecks {
    let job: AuditJob
    /// The output's bytes, read once.
    let output: [UInt8]
    /// The source, read and parsed once by the auditor (nil without a source).
    let source: InputFile?
    let options: AuditOptions
    /// The decoders of this file's work (its own `--file-timeout`).
    let decoders: any Decoders
    /// The source's reference render when the caller already found it (the converter's camera look).
    let reference: ReferenceLookup?

    /// Runs the checks, appending to `results` (which holds the findings made before them).
    func run(_ results: inout Checks.Results) {
        var outputInput: InputFile? = nil
        if !Brands.isHEIF(output), let url = job.output {
            // The output as the metadata reader reads it, made once: the format check and the metadata diff share it.
            let input = InputFile(url: url, bytes: output, decoders: decoders)
            if let format = Checks.otherFormat(input) {
                otherFormat(format, &results, outputInput: input)
                return
            }
            outputInput = input
        }
        heif(&results, outputInput: outputInput)
    }

    /// The checks of a readable image of another family: its metadata and orientation against the source, and a JPEG's
    /// gain map; the container, signalling and decode checks do not apply.
    func otherFormat(_ format: String, _ results: inout Checks.Results, outputInput: InputFile) {
        let jpeg = Source.isJPEG(output)
        results.findings.append(Checks.notHEIF(format, jpeg: jpeg))
        fileFacts(&results)
        if jpeg, let gainMaps = Checks.jpegGainMaps(output, options: options, decoders: decoders) {
            results.gainMaps = gainMaps.results
            results.findings += gainMaps.findings
            results.findings += pairGainMaps(gainMaps)
        }
        metadata(&results, output: outputInput, outputHEIF: nil)
    }

    /// The checks of a HEIF-family output, or of bytes no reader recognises (the container check says why).
    /// - Parameter outputInput: the output as the metadata reader reads it, when the format check already made it.
    func heif(_ results: inout Checks.Results, outputInput: InputFile?) {
        fileFacts(&results)
        let container = Checks.container(output)
        results.findings += container.findings
        let file = container.file
        if let sequence = Checks.sequenceOnly(file) {
            results.findings.append(sequence)
            return
        }
        results.findings += Checks.conformance(file, output: output, source: source)
        let essential = Checks.unsupportedEssential(file)
        results.findings += essential
        let overlay = essential.isEmpty && options.decode ? Checks.overlayPrimary(file) : nil
        if let overlay {
            results.decode.append(overlay.row)
            results.findings.append(overlay.finding)
        }
        // The primary decode (the slowest check) runs beside the others; its findings are added last.
        let primary =
            options.decode && essential.isEmpty && overlay == nil
            ? Checks.startPrimaryDecode(
                file, output: output, thumbnails: options.thumbnails, source: source, reference: reference,
                decoders: decoders) : nil
        let gainMaps = Checks.gainMaps(file, options: options, decoders: decoders)
        results.gainMaps = gainMaps.results
        results.findings += gainMaps.findings
        results.thumbnails.gainMap = gainMaps.thumbnail
        results.findings += pairGainMaps(gainMaps)
        results.findings += Checks.signalling(
            file, hasGainMap: !gainMaps.results.isEmpty, source: Checks.heif(of: source))
        metadata(&results, output: outputInput, outputHEIF: file)
        if job.source == nil, let inconsistent = Checks.orientation(file) { results.findings.append(inconsistent) }
        guard let primary else { return }
        let decoded = Checks.decode(primary, file: file, thumbnails: options.thumbnails, decoders: decoders)
        results.decode += decoded.rows + gainMaps.decodes
        results.findings += decoded.findings
        results.thumbnails.primary = decoded.thumbnail
        guard let lookup = primary.reference else { return }
        let rendered = Checks.render(lookup, output: decoded.pixels, options: options)
        results.findings += rendered.findings
        results.thumbnails.reference = rendered.thumbnail
    }

    /// The pair as library entries (``FileFactsCheck``), with a source.
    func fileFacts(_ results: inout Checks.Results) {
        guard let src = job.source, let out = job.output,
            let j = FileFactsCheck.judge(source: src, output: out, sourceFile: source, decoders: decoders)
        else { return }
        results.fileFacts = j.rows
        results.findings += j.findings
    }

    /// The gain maps of the pair (``Checks/pairGainMaps(source:output:policy:)``); the source's is read only with a
    /// source.
    func pairGainMaps(_ output: Checks.GainMapOutcome) -> [Finding] {
        let sourceMap = job.source != nil ? Checks.sourceGainMap(source) : nil
        return Checks.pairGainMaps(source: sourceMap, output: output, policy: options.policy)
    }

    /// The metadata and orientation against the source (``PairJudgement``), with a source.
    /// - Parameter output: the output as the metadata reader reads it; nil makes it here, from `output` and
    ///   `outputHEIF`.
    func metadata(_ results: inout Checks.Results, output input: InputFile?, outputHEIF: HEIFFile?) {
        guard job.source != nil, let source, let url = job.output else { return }
        let r = Checks.metadata(
            source: source,
            output: input ?? InputFile(url: url, bytes: output, heif: outputHEIF, decoders: decoders),
            outputHEIF: outputHEIF, options: options)
        results.diffRows = r.rows
        results.findings += r.findings
    }
}

import FileContent
import Findings
import Foundation
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
        var ctx = Checks.Context(
            job: job, output: bytes, source: source, options: options, findings: findings, decoders: decoders)
        ctx.reference = read?.reference
        Checks.run(&ctx)
        if let r = result.sizeRatio {
            if let lo = options.policy.sizeRatioMin, r < lo {
                ctx.findings.append(
                    Finding(
                        .sizeRatio,
                        message: "the output is \(r) × the source's size, below the policy's \(lo)",
                        evidence: Evidence(expected: "≥ \(lo)", actual: String(r))))
            }
            if let hi = options.policy.sizeRatioMax, r > hi {
                ctx.findings.append(
                    Finding(
                        .sizeRatio,
                        message: "the output is \(r) × the source's size, above the policy's \(hi)",
                        evidence: Evidence(expected: "≤ \(hi)", actual: String(r))))
            }
        }
        let rebuilt = FileResult(
            name: job.name, source: job.sourceDisplay, output: job.outputDisplay, sourceBytes: sourceBytes,
            outputBytes: outSize, sha256: digest, findings: options.policy.apply(ctx.findings),
            metadata: ctx.diffRows, gainMaps: ctx.gainMaps, decode: ctx.decode, fileFacts: ctx.fileFacts)
        return (rebuilt, ctx.thumbnails)
    }

    /// The size of the regular file at `url`, through a symlink (the audit reads what a reader would open); nil for
    /// anything else.
    static func fileSize(_ url: URL) -> UInt64? {
        var st = stat()
        guard stat(url.path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return UInt64(st.st_size)
    }
}

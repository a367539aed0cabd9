import Findings
import Foundation
import HEIF
import MetadataIO
import ReportModel
import ReportWriting

/// The per-file checks. Each is a function from what it needs (the output's bytes, the container as parsed, the
/// source as read, what an earlier check made: the gain maps found, the primary decoded) to a typed outcome (its
/// findings and what a later check takes); `FileChecks` (FileAuditor.swift) runs them in a fixed order and gathers
/// what they make into `Results`.
enum Checks {
    /// What the checks made of one file, in report order.
    struct Results {
        var findings: [Finding]
        /// The metadata diff's rows (with a source).
        var diffRows: [DiffRow] = []
        /// The pair as library entries (with a source).
        var fileFacts: [FileFactRow]? = nil
        var gainMaps: [GainMapResult] = []
        /// The primary's decode, then each gain map's.
        var decode: [DecodeResult] = []
        var thumbnails = Thumbnails()
    }

    /// The source's container, when it is a HEIF file (an ISOBMFF `ftyp` whose major brand is of the family).
    static func heif(of source: InputFile?) -> HEIFFile? {
        source?.bytes.map(Brands.isHEIF) == true ? source?.heif : nil
    }

    /// The output's format when it is a readable image of another family (JPEG, TIFF, a RAW, a Canon CR3): a file
    /// with no ISOBMFF `ftyp` naming a HEIF brand, whose metadata exiv2 reads. Nil for bytes no reader recognises (a
    /// HEIF that lost its `ftyp` stays with the container checks, which say why).
    /// - Parameter output: the output as the metadata reader reads it (a file that is not of the HEIF family).
    static func otherFormat(_ output: InputFile) -> String? {
        if let set = try? MetadataReader.read(output, sidecars: false) { return set.format }
        return output.bytes.flatMap(Source.otherMagic)
    }

    /// `output.not-heif` for an output that is not a HEIF-family file: the container, signalling and decode checks do
    /// not apply; the metadata and orientation are still judged against the source, and a JPEG's gain map (MPF, Ultra
    /// HDR, ISO 21496-1, Apple) too. A warning, since the auditor was asked about a file it audits only in part.
    static func notHEIF(_ format: String, jpeg: Bool) -> Finding {
        Finding(
            .outputNotHeif,
            message:
                "the output is not a HEIF-family file (\(format)): only its metadata, orientation\(jpeg ? " and gain map" : "") were compared",
            evidence: Evidence(expected: "a HEIF-family file (ftyp with a HEIF brand)", actual: format))
    }
}

extension [Finding] {
    /// Adds a finding at the catalogue's severity for `code`.
    mutating func add(_ code: FindingCode, _ message: String, _ evidence: Evidence? = nil) {
        append(Finding(code, message: message, evidence: evidence))
    }

    /// Adds a finding at a severity other than the catalogue's (the call site says why).
    mutating func add(_ code: FindingCode, _ severity: Severity, _ message: String, _ evidence: Evidence? = nil) {
        append(Finding(code: code, severity: severity, message: message, evidence: evidence))
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

import Findings
import ReportModel

/// A fixed report exercising every part of the model: the report-model and renderer goldens, the history.
public enum FixedReport {
    public static func make() -> AuditReport {
        let files = [
            FileResult(
                name: "a/IMG_0001.heic", source: "a/IMG_0001.dng", output: "a/IMG_0001.heic", sourceBytes: 24_000_000,
                outputBytes: 3_000_000, sha256: String(repeating: "ab", count: 32),
                findings: [
                    Finding(
                        code: .metadataLost, severity: .error,
                        message: "GPS:GPSLatitude is in the source but not in the output",
                        evidence: Evidence(expected: "48.8584", field: "GPS:GPSLatitude")),
                    Finding(
                        code: .metadataKnownLoss, severity: .knownLoss,
                        message: "ExifIFD:MakerNote lost (known loss)",
                        evidence: Evidence(field: "ExifIFD:MakerNote")),
                    Finding(
                        code: .gainmapMissing, severity: .error,
                        message: "the source has a gain map; the output has none <&>"),
                ],
                metadata: [
                    DiffRow(field: "IFD0:Make", status: .kept, source: "Canon", output: "Canon"),
                    DiffRow(field: "GPS:GPSLatitude", status: .lost, source: "48.8584", output: nil),
                    DiffRow(field: "ExifIFD:MakerNote", status: .knownLoss, source: "(4096 bytes)", output: nil),
                    DiffRow(
                        field: "IFD0:Orientation", status: .expectedChange, source: "6", output: "1",
                        note: "pixels rotated"),
                ],
                gainMaps: [],
                decode: [DecodeResult(target: .primary, status: .ok, width: 6000, height: 4000, bitDepth: 10)],
                fileFacts: [
                    FileFactRow(
                        fact: "mtime", source: "2019-06-20T10:00:00Z", output: "2026-01-02T03:04:05Z", status: .changed
                    ),
                    FileFactRow(fact: "mode", source: "640", output: "644", status: .widened),
                    FileFactRow(fact: "xattr user.xdg.tags", source: "holiday,<cat>", output: nil, status: .lost),
                ]),
            FileResult(
                name: "b/IMG_0002.heic", source: "b/IMG_0002.heic", output: "b/IMG_0002.heic", sourceBytes: 2_000_000,
                outputBytes: 2_100_000, sha256: String(repeating: "cd", count: 32),
                findings: [
                    Finding(
                        code: .metadataKnownLossNotHappened, severity: .info,
                        message: "ExifIFD:MakerNote survived although the policy lists it as a known loss",
                        evidence: Evidence(field: "ExifIFD:MakerNote"))
                ],
                gainMaps: [
                    GainMapResult(
                        kind: "iso", item: 7, description: .pass, metadata: .pass, data: .pass, colourSpace: .pass),
                    GainMapResult(
                        kind: "apple", item: 5, description: .pass, metadata: .fail, data: .pass, colourSpace: .absent),
                ],
                decode: [
                    DecodeResult(target: .primary, status: .ok, width: 4032, height: 3024, bitDepth: 8),
                    DecodeResult(target: .gainmap, status: .failed, message: "libheif: Unsupported color conversion"),
                ]),
            FileResult(
                name: "c/IMG_0003.dng", source: "c/IMG_0003.dng", sourceBytes: 100,
                findings: [
                    Finding(code: .outputMissing, severity: .error, message: "no output was found for this source")
                ]),
            FileResult(
                name: "d/broken.heic", output: "d/broken.heic", outputBytes: 5000,
                sha256: String(repeating: "ef", count: 32),
                findings: [
                    Finding(
                        code: .containerTruncated, severity: .error, message: "mdat runs past the end of the file",
                        evidence: Evidence(offset: 1234, expected: "9000 bytes", actual: "3766 bytes")),
                    Finding(
                        code: .signallingBitDepthMismatch, severity: .warning, message: "pixi says 8 bits, hvcC 10",
                        evidence: Evidence(expected: "10", actual: "8", item: 1)),
                ]),
        ]
        let run = RunParameters(
            mode: .directories, startedAt: "2026-01-02T03:04:05Z", durationSeconds: 0, failOn: .error, decode: true,
            jobs: 2, policy: "built-in", roots: ["outputs": "out", "sources": "src"])
        return AuditReport(
            tool: ToolInfo(version: "0.0.0-test"),
            libraries: [LibraryVersion(name: "libheif", version: "X"), LibraryVersion(name: "exiv2", version: "Y")],
            run: run, files: files, unmatchedOutputs: ["z/extra.heic"])
    }
}

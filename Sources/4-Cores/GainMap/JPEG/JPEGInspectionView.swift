import Findings
import Foundation

/// `readback inspect FILE.jpg`: a JPEG's segments with their offsets, its MPF index and its gain map part by part,
/// for people (`text()`) and machines (`json()`, keys sorted, `schemaVersion` 1 of the JPEG form).
public struct JPEGInspectionView: Codable, Sendable, Hashable {
    /// One segment of the primary or of the gain-map image.
    public struct Segment: Codable, Sendable, Hashable {
        public var image: String
        public var offset: Int
        public var length: Int
        public var label: String
    }

    /// One MPF entry.
    public struct Entry: Codable, Sendable, Hashable {
        public var index: Int
        public var type: String
        public var offset: Int
        public var size: Int
        public var jpegAtOffset: Bool
    }

    /// One part of the gain map.
    public struct Part: Codable, Sendable, Hashable {
        public var part: String
        public var verdict: String
        public var evidence: [String]
    }

    public var schemaVersion = 1
    public var file: String
    public var fileBytes: Int
    public var format = "image/jpeg"
    public var width: Int?
    public var height: Int?
    public var segments: [Segment]
    public var mpf: [Entry]?
    public var gainMapForms: [String]
    public var gainMapParts: [Part]
    public var findings: [Finding]

    /// The view of `bytes`; nil when they are not a JPEG.
    public init?(bytes: [UInt8], name: String) {
        guard let i = JPEGGainMapReader.inspect(bytes) else { return nil }
        file = name
        fileBytes = bytes.count
        width = i.primary.width
        height = i.primary.height
        func segs(_ l: JPEGImageLayout, _ image: String) -> [Segment] {
            l.segments.map { Segment(image: image, offset: $0.offset, length: $0.payload.count + 2, label: $0.label) }
        }
        segments = segs(i.primary, "primary")
        if let g = i.gainMapImage { segments += segs(g, "gain map") }
        mpf = i.mpf.map { m in
            m.entries.enumerated().map { k, e in
                Entry(
                    index: k + 1, type: Self.typeName(e.type), offset: e.fileOffset, size: e.size,
                    jpegAtOffset: JPEGScanner.isSOI(bytes, at: e.fileOffset))
            }
        }
        let r = i.inspection.reports.first
        gainMapForms = r?.forms.map(\.rawValue) ?? []
        gainMapParts =
            r?.parts.map { Part(part: $0.part.rawValue, verdict: $0.verdict.rawValue, evidence: $0.evidence) } ?? []
        findings = i.inspection.findings + (r?.findings ?? [])
    }

    /// True when a finding is an error.
    public var hasErrors: Bool { findings.contains { $0.severity == .error } }

    /// CIPA DC-007 image type names.
    static func typeName(_ t: UInt32) -> String {
        switch t {
        case 0x03_0000: "baseline primary"
        case 0x01_0001: "large thumbnail (VGA)"
        case 0x01_0002: "large thumbnail (full HD)"
        case 0x02_0001: "multi-frame panorama"
        case 0x02_0002: "multi-frame disparity"
        case 0x02_0003: "multi-frame multi-angle"
        case 0: "undefined"
        default: "type 0x" + String(t, radix: 16)
        }
    }

    public func json() -> String {
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        guard let d = try? enc.encode(self) else { return "{}" }
        return String(decoding: d, as: UTF8.self) + "\n"
    }

    /// The summary for people.
    public func text() -> String {
        var out = ["\(file): \(fileBytes) bytes, JPEG" + (width.map { " \($0)x\(height ?? 0)" } ?? "")]
        out.append("segments:")
        for s in segments {
            out.append(
                "  \(s.image.padding(toLength: 9, withPad: " ", startingAt: 0)) @\(s.offset)  \(s.label) (\(s.length) bytes)"
            )
        }
        if let mpf {
            out.append("MPF index: \(mpf.count) image\(mpf.count == 1 ? "" : "s")")
            for e in mpf {
                out.append(
                    "  \(e.index): \(e.type) @\(e.offset), \(e.size) bytes\(e.jpegAtOffset ? "" : " (no JPEG there)")")
            }
        } else {
            out.append("MPF index: none")
        }
        if gainMapForms.isEmpty {
            out.append("gain map: none")
        } else {
            out.append("gain map: \(gainMapForms.joined(separator: " + "))")
            for p in gainMapParts {
                out.append(
                    "  \(p.part): \(p.verdict)" + (p.evidence.isEmpty ? "" : " (\(p.evidence.joined(separator: "; ")))")
                )
            }
        }
        if findings.isEmpty {
            out.append("findings: none")
        } else {
            out.append("findings:")
            for f in findings { out.append("  \(f.description)") }
        }
        return out.joined(separator: "\n") + "\n"
    }
}

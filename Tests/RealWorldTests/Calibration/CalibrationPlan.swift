import Digest
import Foundation

/// Which outputs the calibration builds from the corpus, chosen by what the files are, never by name.
///
/// Sources: the HEIF-family files (heic/heif/hif/avif) that carry camera metadata (exiftool reads an IFD0:Make) and
/// that libheif's own `heif-convert` decodes (the truth's display needs it). Per source, cheaply (metadata-only
/// rewrites, no encoder): an untouched byte copy, `exiftool -all= -tagsFromFile @ -all:all` (a faithful rebuild) and
/// the deliberate losses its contents allow (GPS stripped, DateTimeOriginal shifted, irot cleared two ways, Exif
/// Orientation reset). The encoders (heif-convert + heif-enc + exiftool copy, vips copy, ImageMagick convert, and a
/// turn of the pixels) are slow on 12 MP phone files, so they run on one source per layout (irot, Exif Orientation,
/// coded portrait, gain map, GPS, MakerNote), richest layout and then smallest file first, within pixel budgets.
struct CalibrationPlan {
    struct Source {
        let url: URL
        let relative: String
        let sha256: String
        let megapixels: Double
        let exif: [String: Any]
        let boxes: Boxes

        var exifOrientation: Int? { (exif["IFD0:Orientation"] as? NSNumber)?.intValue }
        var hasGPS: Bool { exif.keys.contains { $0.hasPrefix("GPS:GPSLatitude") } }
        var hasDateTimeOriginal: Bool { exif["ExifIFD:DateTimeOriginal"] != nil }
        var hasMakerNote: Bool { exif.keys.contains { $0.hasPrefix("MakerNotes:") } }
        var codedPortrait: Bool {
            let w = (exif["File:ImageWidth"] as? NSNumber)?.intValue ?? 0
            let h = (exif["File:ImageHeight"] as? NSNumber)?.intValue ?? 0
            return (h > w) != (boxes.primaryOrientation >= 5)
        }
        /// What makes a layout different for a rewriting tool.
        var layout: String {
            "\(boxes.primaryOrientation)/\(exifOrientation ?? 0)/\(codedPortrait)/\(boxes.hasUsableGainMap)/\(hasGPS)/\(hasMakerNote)"
        }
        var richness: Int {
            [boxes.primaryOrientation != 1, (exifOrientation ?? 1) != 1, boxes.hasUsableGainMap, hasGPS, hasMakerNote]
                .filter { $0 }.count
        }
    }

    struct Pair {
        let source: Source
        let tool: String
        let transformation: String
        var id: String { "\(source.sha256.prefix(12))-\(tool)-\(transformation)" }
    }

    /// Largest source (MP) of any pair, of the metadata-only deliberate losses, of heif-enc, of vips/ImageMagick.
    static let maxMegapixels = 60.0
    static let maxEditMegapixels = 13.0
    static let fastBudget = 40.0
    static let slowBudget = 14.0

    let sources: [Source]
    let pairs: [Pair]

    init(corpus: URL) throws {
        // The deliberately broken files are the self-audit's business: their errors are their own, not a tool's.
        let broken = BrokenFiles(corpus: corpus)
        let files = try RealWorldCorpus.files(["heic", "heif", "hif", "avif"]).filter {
            !broken.isBroken(String($0.path.dropFirst(corpus.path.count + 1)), $0)
        }
        let exif = try Tool.exiftool(
            [
                "-n", "-G1", "-IFD0:Make", "-IFD0:Orientation", "-GPS:GPSLatitude", "-ExifIFD:DateTimeOriginal",
                "-MakerNotes:all", "-File:ImageWidth", "-File:ImageHeight",
            ],
            files.map(\.path))
        var sources: [Source] = []
        for f in files {
            guard let e = exif[f.path], e["IFD0:Make"] != nil else { continue }
            let w = (e["File:ImageWidth"] as? NSNumber)?.doubleValue ?? 0
            let h = (e["File:ImageHeight"] as? NSNumber)?.doubleValue ?? 0
            guard w * h > 0, w * h / 1e6 <= Self.maxMegapixels, let data = try? Data(contentsOf: f) else { continue }
            let bytes = [UInt8](data)
            let boxes = Boxes(bytes)
            guard boxes.primary != nil, (try? Tool.run("heif-info", [f.path])) != nil else { continue }
            sources.append(
                Source(
                    url: f, relative: String(f.path.dropFirst(corpus.path.count + 1)), sha256: SHA256.hex(bytes),
                    megapixels: w * h / 1e6, exif: e, boxes: boxes))
        }
        self.sources = sources
        pairs = Self.pairs(for: sources)
    }

    static func pairs(for sources: [Source]) -> [Pair] {
        var pairs: [Pair] = []
        for s in sources {
            pairs.append(Pair(source: s, tool: "copy", transformation: "untouched"))
            pairs.append(Pair(source: s, tool: "exiftool", transformation: "exifrebuild"))
            guard s.megapixels <= maxEditMegapixels else { continue }
            if s.hasGPS { pairs.append(Pair(source: s, tool: "lossy", transformation: "gps-strip")) }
            if s.hasDateTimeOriginal { pairs.append(Pair(source: s, tool: "lossy", transformation: "dto-shift")) }
            if s.boxes.primaryRotation != nil {
                pairs.append(Pair(source: s, tool: "lossy", transformation: "irot-unassoc"))
                pairs.append(Pair(source: s, tool: "lossy", transformation: "irot-angle0"))
            }
            if (s.exifOrientation ?? 1) != 1 {
                pairs.append(Pair(source: s, tool: "lossy", transformation: "exif-orient1"))
            }
        }
        for s in pick(sources, budget: fastBudget) {
            pairs.append(Pair(source: s, tool: "heifenc", transformation: "decode+encode+exifcopy"))
            pairs.append(Pair(source: s, tool: "lossy", transformation: "rotate-pixels"))
        }
        for s in pick(sources, budget: slowBudget) {
            pairs.append(Pair(source: s, tool: "vips", transformation: "copy"))
            pairs.append(Pair(source: s, tool: "magick", transformation: "convert"))
        }
        return pairs
    }

    /// One source per layout, richest layouts first, the smallest file of a layout first, within a pixel budget.
    static func pick(_ sources: [Source], budget: Double) -> [Source] {
        var seen = Set<String>()
        var used = 0.0
        var out: [Source] = []
        let order = sources.sorted {
            ($0.richness, -$0.megapixels, $0.sha256) > ($1.richness, -$1.megapixels, $1.sha256)
        }
        for s in order where !seen.contains(s.layout) && used + s.megapixels <= budget {
            seen.insert(s.layout)
            used += s.megapixels
            out.append(s)
        }
        return out
    }
}

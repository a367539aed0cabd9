import Foundation

/// Each pair's truth from readers other than Readback: exiftool's values (`-n -G1`) for GPS, capture time
/// and make/model; this folder's own box reader (``Boxes``) for the transforms and the gain map; and libheif's
/// `heif-convert`, which applies irot/imir/clap as every HEIF reader does, for what is displayed.
///
/// Per topic: `kept`, `lost`, or `n/a` when the source has nothing of it. Orientation: `kept` or `lost` by the best of
/// the eight transforms between small renders of the source and the output as shown (`undetermined` when the runner-up
/// is within 0.05: a flat or symmetric picture cannot be shown turned); consistency: `inconsistent` when the source's
/// two reader models (irot/imir and Exif Orientation) agree and the output's do not.
struct Truth: Equatable {
    /// One verdict per topic, in the order of ``columns`` (the table's columns).
    let cells: [String]

    static let columns = ["gps", "capture_time", "make_model", "gain_map", "orientation", "consistency"]

    init(cells: [String]) {
        precondition(cells.count == Self.columns.count)
        self.cells = cells
    }
}

enum CalibrationTruth {
    /// The tags the truth reads with exiftool.
    static let exiftoolArgs = [
        "-n", "-G1", "-GPS:all", "-XMP-exif:all", "-ExifIFD:DateTimeOriginal", "-ExifIFD:SubSecTimeOriginal",
        "-ExifIFD:OffsetTimeOriginal", "-XMP-photoshop:DateCreated", "-IFD0:Make", "-IFD0:Model", "-IFD0:Orientation",
    ]
    static let timeKeys = [
        "ExifIFD:DateTimeOriginal", "ExifIFD:SubSecTimeOriginal", "ExifIFD:OffsetTimeOriginal",
        "XMP-exif:DateTimeOriginal", "XMP-photoshop:DateCreated",
    ]
    static let makeKeys = ["IFD0:Make", "IFD0:Model"]

    /// What the truth knows about one file.
    struct Facts {
        let exif: [String: Any]
        let boxes: Boxes
        /// The picture as a HEIF reader shows it, reduced (nil when heif-convert cannot decode it).
        let shown: Luma?

        var exifOrientation: Int {
            let o = (exif["IFD0:Orientation"] as? NSNumber)?.intValue ?? 1
            return (1...8).contains(o) ? o : 1
        }
        var modelsAgree: Bool { boxes.primaryOrientation == exifOrientation }
    }

    /// The facts of a file; its picture is decoded unless `sameDisplayAs` shows the same (then that one's is used).
    static func facts(_ url: URL, exif: [String: Any], scratch: URL, sameDisplayAs other: Facts? = nil) -> Facts {
        let bytes = (try? Data(contentsOf: url)).map { [UInt8]($0) } ?? []
        let boxes = Boxes(bytes)
        if let other, let a = boxes.displaySignature, a == other.boxes.displaySignature {
            return Facts(exif: exif, boxes: boxes, shown: other.shown)
        }
        return Facts(exif: exif, boxes: boxes, shown: Luma.shown(url, scratch: scratch))
    }

    static func judge(source s: Facts, output o: Facts) -> Truth {
        let gpsKeys = s.exif.keys.filter { $0.hasPrefix("GPS:") || $0.hasPrefix("XMP-exif:GPS") }.sorted()
        var orientation = "unknown"
        if let a = s.shown, let b = o.shown, let m = Luma.bestTransform(from: a, to: b) {
            orientation = m.margin < 0.05 ? "undetermined" : m.best == 1 ? "kept" : "lost"
        }
        let consistency =
            !s.modelsAgree ? "source-disagrees" : o.modelsAgree ? "consistent" : "inconsistent"
        return Truth(cells: [
            compare(s.exif, o.exif, gpsKeys), compare(s.exif, o.exif, timeKeys), compare(s.exif, o.exif, makeKeys),
            s.boxes.hasUsableGainMap ? (o.boxes.hasUsableGainMap ? "kept" : "lost") : "n/a", orientation, consistency,
        ])
    }

    /// kept when every one of the source's keys is in the output with the same value, n/a when it has none.
    static func compare(_ s: [String: Any], _ o: [String: Any], _ keys: [String]) -> String {
        let present = keys.filter { s[$0] != nil }
        guard !present.isEmpty else { return "n/a" }
        return present.allSatisfy { k in o[k].map { same(k, s[k]!, $0) } ?? false } ? "kept" : "lost"
    }

    /// exiftool values equal: numbers within 1e-6 (relative; coordinates absolute degrees), text after NUL padding
    /// and trailing blanks are trimmed.
    static func same(_ key: String, _ a: Any, _ b: Any) -> Bool {
        if let x = numbers(a), let y = numbers(b) {
            guard x.count == y.count else { return false }
            let coordinate = ["GPSLatitude", "GPSLongitude", "GPSDestLatitude", "GPSDestLongitude"].contains {
                key.hasSuffix($0)
            }
            return zip(x, y).allSatisfy { p, q in
                coordinate ? abs(p - q) <= 1e-6 : (p == q || abs(p - q) <= 1e-6 * max(abs(p), abs(q)))
            }
        }
        func text(_ v: Any) -> String {
            var s = "\(v)"
            if let nul = s.firstIndex(of: "\0") { s = String(s[..<nul]) }
            while let l = s.last, l == " " || l == "\t" || l == "\r" || l == "\n" { s.removeLast() }
            return s
        }
        return text(a) == text(b)
    }

    static func numbers(_ v: Any) -> [Double]? {
        if let n = v as? NSNumber { return [n.doubleValue] }
        guard let s = v as? String, !s.isEmpty, s.allSatisfy({ "0123456789.-+eE :,".contains($0) }) else { return nil }
        let parts = s.split(whereSeparator: { $0 == " " || $0 == ":" || $0 == "," }).map { Double($0) }
        return parts.isEmpty || parts.contains(nil) ? nil : parts.map { $0! }
    }
}

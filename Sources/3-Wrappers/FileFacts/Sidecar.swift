import FileKinds
import Foundation

/// An XMP sidecar: where it sits beside a file, and what in it is an edit to the RAW rather than a description of it.
///
/// Ratings, labels, keywords and captions describe the photo and are merged into the output's XMP. Develop settings
/// (Adobe Camera Raw / Lightroom `crs:*`, darktable's `darktable:history`) are edits the RAW's renderer applies when it
/// shows the photo; a converter that does not apply them shows the photo unedited, so the original must stay.
public enum Sidecar {
    /// The sidecar of a file: `IMG_1.CR2.xmp` (darktable) then `IMG_1.xmp` (Lightroom/ACR), either case of the
    /// extension; nil when there is none.
    public static func locate(for file: URL) -> URL? {
        let dir = file.deletingLastPathComponent()
        let name = file.lastPathComponent
        let stem = file.deletingPathExtension().lastPathComponent
        let x = FileKinds.sidecar
        for candidate in ["\(name).\(x)", "\(name).\(x.uppercased())", "\(stem).\(x)", "\(stem).\(x.uppercased())"] {
            let u = dir.appendingPathComponent(candidate)
            if u.path != file.path, FileManager.default.fileExists(atPath: u.path) { return u }
        }
        return nil
    }

    /// The XMP property an exiv2 key belongs to: "Xmp.crs.Exposure2012" → "crs:Exposure2012",
    /// "Xmp.darktable.history[2]/darktable:operation" → "darktable:history"; nil for a key that is not XMP.
    public static func property(ofKey key: String) -> String? {
        let parts = key.split(separator: ".", maxSplits: 2)
        guard parts.count == 3, parts[0] == "Xmp" else { return nil }
        let name = parts[2].prefix { $0 != "[" && $0 != "/" }
        return "\(parts[1]):\(name)"
    }

    /// What a sidecar property is to the output: carried into its XMP, a develop setting (an edit to the RAW, not
    /// rendered), the sidecar's own record (the tool and dates that wrote it, its document IDs and history), or
    /// geometry the output has of its own. The exiv2 shim's XMP builder applies the same rule (a test holds them
    /// together).
    public enum Route: String, Sendable {
        case carried, develop, ownRecord, geometry
    }

    /// The route of a sidecar property by its exiv2 key.
    public static func route(ofKey key: String) -> Route {
        let parts = key.split(separator: ".", maxSplits: 2)
        let group = parts.count > 1 ? String(parts[1]) : ""
        if group == "crs" || group == "darktable" { return .develop }
        if group == "xmpMM" { return .ownRecord }
        switch property(ofKey: key) {
        case "xmp:CreatorTool", "xmp:MetadataDate", "xmp:ModifyDate": return .ownRecord
        case "tiff:Orientation", "tiff:ImageWidth", "tiff:ImageLength", "exif:PixelXDimension",
            "exif:PixelYDimension":
            return .geometry
        default: return .carried
        }
    }

    /// Develop settings Readback does not apply, one short line each ("crs:Exposure2012 +0.50", "crop",
    /// "darktable: exposure, crop"); empty when the sidecar holds none (or only neutral values).
    /// - Parameters:
    ///   - entries: the sidecar's XMP as exiv2 keys and text values.
    ///   - sourceOrientation: the RAW's own Exif orientation, to tell a rotation made in the editor from a copy.
    public static func developEdits(_ entries: [(key: String, text: String)], sourceOrientation: Int?) -> [String] {
        var edits: [String] = []
        var values: [String: String] = [:]
        for e in entries where values[e.key] == nil { values[e.key] = e.text }
        edits += adobeEdits(values)
        if let o = values["Xmp.tiff.Orientation"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }),
            o != (sourceOrientation ?? 1)
        {
            edits.append("orientation \(o) (tiff:Orientation; the RAW says \(sourceOrientation ?? 1))")
        }
        edits += darktableEdits(values)
        return edits
    }

    /// `crs:` settings whose neutral value is 0, by exact name or by prefix.
    static let zeroNeutral: Set<String> = [
        "Exposure2012", "Exposure", "Contrast2012", "Highlights2012", "Shadows2012", "Whites2012", "Blacks2012",
        "Clarity2012", "Texture", "Dehaze", "Vibrance", "Saturation", "IncrementalTemperature", "IncrementalTint",
        "CropAngle", "PostCropVignetteAmount", "GrainAmount", "PerspectiveVertical", "PerspectiveHorizontal",
        "PerspectiveRotate", "PerspectiveAspect", "PerspectiveX", "PerspectiveY", "HighlightRecovery", "FillLight",
    ]
    static let zeroNeutralPrefixes = [
        "HueAdjustment", "SaturationAdjustment", "LuminanceAdjustment", "ParametricShadows", "ParametricDarks",
        "ParametricLights", "ParametricHighlights", "SplitToningShadowSaturation",
        "SplitToningHighlightSaturation", "ColorGradeShadowSat", "ColorGradeMidtoneSat", "ColorGradeHighlightSat",
        "ColorGradeGlobalSat",
    ]
    static let localAdjustments = [
        "GradientBasedCorrections", "CircularGradientBasedCorrections", "PaintBasedCorrections", "RetouchAreas",
        "MaskGroupBasedCorrections",
    ]

    static func adobeEdits(_ v: [String: String]) -> [String] {
        var edits: [String] = []
        for key in v.keys.sorted() where key.hasPrefix("Xmp.crs.") {
            let name = String(key.dropFirst("Xmp.crs.".count))
            guard !name.contains("["), !name.contains("/") else { continue }
            let text = v[key]!.trimmingCharacters(in: .whitespaces)
            if zeroNeutral.contains(name) || zeroNeutralPrefixes.contains(where: name.hasPrefix),
                let x = Double(text.hasPrefix("+") ? String(text.dropFirst()) : text), x != 0
            {
                edits.append("crs:\(name) \(text)")
            }
        }
        if let wb = v["Xmp.crs.WhiteBalance"], wb.lowercased() != "as shot" {
            let t = [v["Xmp.crs.Temperature"].map { "Temperature \($0)" }, v["Xmp.crs.Tint"].map { "Tint \($0)" }]
            edits.append(
                "white balance \(wb)"
                    + (t.compactMap { $0 }.isEmpty ? "" : " (\(t.compactMap { $0 }.joined(separator: ", ")))"))
        }
        if v["Xmp.crs.HasCrop"]?.lowercased() == "true" {
            let sides = ["CropTop", "CropLeft", "CropBottom", "CropRight"].compactMap { s in
                v["Xmp.crs.\(s)"].map { "\(s) \($0)" }
            }
            edits.append("crop" + (sides.isEmpty ? "" : " (\(sides.joined(separator: ", ")))"))
        }
        if let curve = v["Xmp.crs.ToneCurveName2012"] ?? v["Xmp.crs.ToneCurveName"], curve.lowercased() != "linear" {
            edits.append("tone curve \(curve)")
        }
        for local in localAdjustments where v.keys.contains(where: { $0.hasPrefix("Xmp.crs.\(local)[") }) {
            edits.append("local adjustments (crs:\(local))")
        }
        return edits
    }

    /// darktable modules every pipeline runs, never an edit.
    static let darktablePipeline: Set<String> = [
        "rawprepare", "demosaic", "colorin", "colorout", "gamma", "dither", "finalscale", "overexposed",
        "rawoverexposed",
    ]
    /// Modules darktable applies by default to every RAW; an edit only when the user made the entry (its
    /// `multi_name` is not one of darktable's `_builtin_` presets). Conservative: an older darktable that does not
    /// mark its defaults so reads as edited, and the original stays.
    static let darktableDefaults: Set<String> = [
        "temperature", "highlights", "flip", "basecurve", "exposure", "filmicrgb", "sigmoid", "channelmixerrgb",
    ]

    static func darktableEdits(_ v: [String: String]) -> [String] {
        let end = v["Xmp.darktable.history_end"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        var operations: [String] = []
        var n = 1
        while let op = v["Xmp.darktable.history[\(n)]/darktable:operation"], n <= 10_000 {
            defer { n += 1 }
            if let end, n > end { break }
            let item = "Xmp.darktable.history[\(n)]/darktable:"
            let enabled = v[item + "enabled"].map { $0.trimmingCharacters(in: .whitespaces) != "0" } ?? true
            let builtin = v[item + "multi_name"]?.hasPrefix("_builtin_") ?? false
            if darktablePipeline.contains(op) { continue }
            if darktableDefaults.contains(op) && builtin && enabled { continue }
            if !enabled && !darktableDefaults.contains(op) { continue }
            if !operations.contains(op) { operations.append(op) }
        }
        return operations.isEmpty ? [] : ["darktable: " + operations.joined(separator: ", ")]
    }

    /// Where each sidecar property went in the output, one line per destination ("→ XMP: xmp:Rating, dc:subject";
    /// "develop settings, not applied: stay in the sidecar beside the original: crs:Exposure2012"; "not carried: …").
    /// - Parameters:
    ///   - sidecarKeys: the sidecar's XMP keys (exiv2).
    ///   - outputKeys: the output XMP's keys (exiv2).
    public static func routes(sidecarKeys: [String], outputKeys: [String]) -> [String] {
        let out = Set(outputKeys.compactMap(property(ofKey:)))
        var seen = Set<String>()
        var carried: [String] = []
        var develop: [String] = []
        var developCopied: [String] = []
        var own: [String] = []
        var lost: [String] = []
        for key in sidecarKeys {
            guard let p = property(ofKey: key), seen.insert(p).inserted else { continue }
            switch route(ofKey: key) {
            case .develop: if out.contains(p) { developCopied.append(p) } else { develop.append(p) }
            case .ownRecord, .geometry: own.append(p)
            case .carried: if out.contains(p) { carried.append(p) } else { lost.append(p) }
            }
        }
        var lines: [String] = []
        if !carried.isEmpty { lines.append("→ XMP: " + carried.sorted().joined(separator: ", ")) }
        if !develop.isEmpty {
            lines.append(
                "develop settings, not applied, stay in the sidecar beside the original: "
                    + develop.sorted().joined(separator: ", "))
        }
        if !developCopied.isEmpty {
            lines.append(
                "→ XMP, develop settings not applied to the pixels: " + developCopied.sorted().joined(separator: ", "))
        }
        if !own.isEmpty {
            lines.append(
                "the sidecar's own record and geometry, not the photo's, not copied: "
                    + own.sorted().joined(separator: ", "))
        }
        if !lost.isEmpty { lines.append("not carried: " + lost.sorted().joined(separator: ", ")) }
        return lines
    }
}

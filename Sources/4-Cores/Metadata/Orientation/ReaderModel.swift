import ColorScience

/// What readers show of a file, by reader model:
/// - a HEIF reader applies `irot`/`imir`/`clap` and ignores Exif Orientation (ISO/IEC 23008-12 §6.5.10, §6.5.12;
///   MIAF): libheif, Apple, browsers;
/// - an Exif-only reader turns the coded pixels by Exif Orientation (CIPA DC-008 §4.6.4);
/// - a RAW or JPEG file is shown by its Exif Orientation (LibRaw's flip for a RAW comes from it).
extension OrientationInfo {
    /// True for a HEIF/AVIF file (its primary's transform was read).
    public var isHEIF: Bool { heifTransform != nil }
    /// What a HEIF reader does to the coded pixels.
    public var heifView: ExifOrientation { ExifOrientation(exif: heifTransform ?? 1) }
    /// What an Exif-only reader does to the coded pixels (no or an invalid tag: nothing).
    public var exifView: ExifOrientation { ExifOrientation(exif: exif ?? 1) }
    /// How the file is shown: the HEIF view for a HEIF file, the Exif view otherwise.
    public var shown: ExifOrientation { isHEIF ? heifView : exifView }
    /// True when every reader shows the file the same way (a RAW or JPEG has one model).
    public var modelsAgree: Bool { !isHEIF || heifView == exifView }

    /// The coded size, when known.
    var codedSize: (width: Int, height: Int)? {
        guard let w = codedWidth, let h = codedHeight, w > 0, h > 0 else { return nil }
        return (w, h)
    }
}

/// What the pixels say about an output's orientation, measured by a caller that can decode them (the audit).
public struct OrientationEvidence: Sendable, Hashable, Codable {
    /// The output's coded pixels are the source's own (the same coded image data): no turn was baked in.
    public var sameCodedPixels: Bool
    /// The transform T, measured from decoded pixels, with output-as-shown ≈ T(source-as-shown); nil when the
    /// pixels were not compared or did not decide (a flat or symmetric picture).
    public var shownTransform: Int?
    /// How the pixels were compared ("32×32 luma: identity 0.98, best other 0.41"), for the finding's evidence.
    public var note: String?

    public init(sameCodedPixels: Bool = false, shownTransform: Int? = nil, note: String? = nil) {
        self.sameCodedPixels = sameCodedPixels
        self.shownTransform = shownTransform
        self.note = note
    }

    /// No pixel evidence: the tags and sizes decide.
    public static let none = OrientationEvidence()
}

/// The orientation verdict of one source/output pair.
public struct OrientationJudgement: Sendable, Codable {
    public enum Verdict: String, Sendable, Codable {
        /// A HEIF reader shows the output as the source is shown.
        case kept
        /// It shows it turned or mirrored.
        case changed
        /// The tags allow both (the output's pixels may or may not have been turned) and no pixels decided; the
        /// reading without a change was taken.
        case unverified
    }
    public var verdict: Verdict
    /// output-as-shown = transform(source-as-shown), when known.
    public var transform: ExifOrientation?
    /// What decided: "pixels", "coded data", "sizes", "tags".
    public var basis: String
    public var source: OrientationInfo
    public var output: OrientationInfo
}

extension OrientationJudgement {
    /// Judges the pair: how the output's coded raster relates to the source's (`coded_out = C(coded_src)`) is read
    /// from the evidence when there is some, else narrowed by the sizes to the candidates a writer produces: the
    /// coded pixels kept, or turned by the source's HEIF or Exif orientation (baked in). Then output-as-shown =
    /// shown_out ∘ C ∘ shown_src⁻¹ (source-as-shown).
    /// - Parameters:
    ///   - assumedUpright: true asserts C = the source's display transform (the writer turned the pixels upright),
    ///     false asserts C = identity; nil leaves it to the evidence and the sizes.
    public static func judge(
        source s: OrientationInfo, output o: OrientationInfo, evidence: OrientationEvidence, assumedUpright: Bool?
    ) -> OrientationJudgement {
        if let t = evidence.shownTransform {
            let d = ExifOrientation(exif: t)
            return OrientationJudgement(
                verdict: d == .identity ? .kept : .changed, transform: d, basis: "pixels", source: s, output: o)
        }
        var candidates: [ExifOrientation]
        var basis = "tags"
        if evidence.sameCodedPixels {
            candidates = [.identity]
            basis = "coded data"
        } else if let up = assumedUpright {
            candidates = [up ? s.shown : .identity]
        } else {
            candidates = [.identity, s.shown, s.exifView, s.heifView].reduce(into: []) {
                if !$0.contains($1) { $0.append($1) }
            }
        }
        if let swap = quarterTurnBetweenCodedRasters(s, o) {
            let fit = candidates.filter { $0.swapsAxes == swap }
            candidates = fit.isEmpty ? ExifOrientation.all.filter { $0.swapsAxes == swap } : fit
            basis = basis == "tags" ? "sizes" : basis
        }
        let shownOut = Set(candidates.map { s.shown.inverse.then($0).then(o.shown) })
        let verdict: Verdict =
            shownOut == [.identity] ? .kept : shownOut.contains(.identity) ? .unverified : .changed
        return OrientationJudgement(
            verdict: verdict, transform: verdict == .unverified ? nil : shownOut.count == 1 ? shownOut.first : nil,
            basis: basis, source: s, output: o)
    }

    /// Whether the coded rasters differ by a quarter turn, from their sizes; nil when a size is unknown or nearly
    /// square (within 1 %).
    static func quarterTurnBetweenCodedRasters(_ s: OrientationInfo, _ o: OrientationInfo) -> Bool? {
        guard let a = s.codedSize, let b = o.codedSize else { return nil }
        func squarish(_ w: Int, _ h: Int) -> Bool { abs(w - h) * 100 <= max(w, h) }
        guard !squarish(a.width, a.height), !squarish(b.width, b.height) else { return nil }
        return (a.width > a.height) != (b.width > b.height)
    }

    /// True when the output's two reader models disagree although the source's agreed: one kind of reader now shows
    /// it turned (upright pixels with Exif 6 and no irot; irot kept with Exif reset to 1).
    public var inconsistent: Bool { output.isHEIF && source.modelsAgree && !output.modelsAgree }

    /// True when the output pairs a turning transform with an Exif Orientation other than 1 and the source did not:
    /// only a reader that applies both (libheif#227) turns it twice.
    public var introducesDoubleRotation: Bool {
        output.doubleRotationHazard && !source.doubleRotationHazard
    }

    /// "irot/imir 6, Exif 6" or "Exif 6" (a RAW or JPEG), for messages.
    static func describe(_ i: OrientationInfo) -> String {
        let e = i.exif.map { "Exif \($0)" } ?? "no Exif Orientation"
        guard i.isHEIF else { return e }
        return ((i.heifTransform ?? 1) == 1 ? "no turning irot/imir" : "irot/imir \(i.heifTransform!)") + ", " + e
    }
}

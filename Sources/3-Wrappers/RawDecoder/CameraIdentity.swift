import Foundation

/// A camera as its file names it (Exif Make and Model), matched against LibRaw's camera list, so that a file LibRaw
/// refuses is named by its camera and the reason is told apart: a camera LibRaw does not know, or a known camera's
/// file without raw data (truncated, pruned, a metadata-only stub).
public struct CameraIdentity: Sendable, Equatable {
    /// The make as LibRaw's list spells it when LibRaw knows the brand ("Nikon" for "NIKON CORPORATION"), else the
    /// file's Make.
    public let brand: String
    /// The model without a leading brand word ("EOS R6" for "Canon EOS R6").
    public let model: String

    /// "Canon EOS R6".
    public var name: String { brand.isEmpty ? model : model.isEmpty ? brand : brand + " " + model }

    /// Nil when the file names neither a make nor a model.
    /// - Parameters:
    ///   - make: Exif.Image.Make, as written.
    ///   - model: Exif.Image.Model, as written.
    ///   - cameras: LibRaw's camera list (`LibRaw.cameras`): its first words are the brands it knows.
    public init?(make: String?, model: String?, cameras: [String]) {
        let make = (make ?? "").trimmingCharacters(in: .whitespacesAndNewlines.union(.controlCharacters))
        var model = (model ?? "").trimmingCharacters(in: .whitespacesAndNewlines.union(.controlCharacters))
        guard !make.isEmpty || !model.isEmpty else { return nil }
        let brands = Set(cameras.compactMap { $0.split(separator: " ").first.map(String.init) })
        let modelFirst = model.split(separator: " ").first.map(String.init) ?? ""
        // A model that starts with a known brand names it ("PENTAX K-3" made by "RICOH IMAGING COMPANY, LTD.").
        if let b = Self.brand(of: modelFirst, among: brands), Self.squash(modelFirst) == Self.squash(b) {
            brand = b
            model = String(model.dropFirst(modelFirst.count)).trimmingCharacters(in: .whitespaces)
        } else if let b = Self.brand(ofMake: make, model: model, among: brands, cameras: cameras) {
            brand = b
        } else {
            brand = make
            // "Acme Z1" by "Acme Optics": the model's first word repeats the make's.
            let makeFirst = make.split(separator: " ").first.map(String.init) ?? ""
            if !makeFirst.isEmpty, modelFirst.lowercased() == makeFirst.lowercased(), model.count > modelFirst.count {
                model = String(model.dropFirst(modelFirst.count)).trimmingCharacters(in: .whitespaces)
            }
        }
        self.model = model
    }

    /// Whether LibRaw's list names this camera: same brand, and the same model, or one that differs only by words
    /// after it ("EOS 350D" for "EOS 350D DIGITAL"; "Z f (HE/HE* formats are not supported yet)" for "Z f").
    public func isListed(in cameras: [String]) -> Bool { Self.listed(brand: brand, model: model, in: cameras) }

    static func listed(brand: String, model: String, in cameras: [String]) -> Bool {
        let b = Self.fold(brand)
        let m = Self.fold(model)
        guard !m.isEmpty else { return false }
        return cameras.contains { entry in
            let f = Self.fold(entry)
            guard f.hasPrefix(b + " ") else { return false }
            // "Canon EOS 350D / Digital Rebel XT / Kiss Digital N": one camera under each of its regional names.
            return f.dropFirst(b.count + 1).components(separatedBy: " / ").contains { alias in
                let listed = Self.fold(alias)
                return listed == m || listed.hasPrefix(m + " ") || m.hasPrefix(listed + " ")
            }
        }
    }

    /// The brand a Make names: of the brands it starts with or holds as a word ("Konica Minolta Camera, Inc." holds
    /// both Konica and Minolta), the one LibRaw lists this model under ("Minolta DiMAGE A2"), else the longest it
    /// starts with.
    static func brand(ofMake make: String, model: String, among brands: Set<String>, cameras: [String]) -> String? {
        let words = Set(make.split { !$0.isLetter && !$0.isNumber }.map { squash(String($0)) })
        let held = brands.filter { words.contains(squash($0)) }.sorted()
        let prefix = brand(of: make, among: brands)
        for b in (prefix.map { [$0] } ?? []) + held where listed(brand: b, model: model, in: cameras) { return b }
        return prefix
    }

    /// The longest brand of LibRaw's list that `s`, squashed, starts with ("NIKON CORPORATION" → "Nikon").
    static func brand(of s: String, among brands: Set<String>) -> String? {
        let q = squash(s)
        guard !q.isEmpty else { return nil }
        return brands.filter { q.hasPrefix(squash($0)) }.max { $0.count < $1.count }
    }

    /// Lower case, without spaces, hyphens, underscores and dots ("Phase One" and "PhaseOne" agree).
    static func squash(_ s: String) -> String {
        String(s.lowercased().filter { !" -_.,".contains($0) })
    }

    /// Lower case, every run of spaces, hyphens and underscores one space.
    public static func fold(_ s: String) -> String {
        var out = ""
        var gap = false
        for ch in s.lowercased() {
            if ch == " " || ch == "-" || ch == "_" {
                gap = !out.isEmpty
                continue
            }
            if gap { out.append(" ") }
            gap = false
            out.append(ch)
        }
        return out
    }
}

extension RawDecodeError {
    /// LibRaw's return code for a file whose format it does not recognise (`LIBRAW_FILE_UNSUPPORTED`), whose
    /// message reads "Unsupported file format or not RAW file" even for a known camera's truncated file.
    static let unsupportedFileCode: Int32 = -2

    /// Whether LibRaw refused the file as one it found no usable raw image in: an unrecognised format, an I/O error
    /// while reading it, a metadata-only stub, or sensor data that is absent (constant, all zero, corrupt).
    public var isNoRawData: Bool {
        switch reason {
        case .libraw, .noRawData, .stub, .dataError, .constantFrame, .mostlyZero: return true
        case .impossibleDimensions, .samplesOverWhite, .unexpectedOutput, .unsupportedOpcode, .jpegXL: return false
        }
    }

    /// The reason in one line, naming the camera the file's own metadata names (`camera`, nil when it names none),
    /// and never calling a file "not RAW" when its make and model say otherwise:
    /// - a camera LibRaw does not list, whose format LibRaw did not recognise: "Hasselblad X2D II 100C: not in the
    ///   camera list of LibRaw 0.22.2 (readback cameras)";
    /// - a camera it lists (or any other file without raw data): "Canon EOS R6: the file holds no raw image data
    ///   (truncated?)", then LibRaw's own detail where it adds something.
    public func reason(camera: CameraIdentity?, cameras: [String]) -> String {
        let plain = String(description.dropFirst(file.count + 2))
        let version = "LibRaw \(LibRaw.shortVersion)"
        var unrecognised = false
        var detail: String? = plain
        switch reason {
        case .libraw(_, let code, _) where code == Self.unsupportedFileCode:
            unrecognised = true
            detail = nil
        case .stub(let r): detail = String(format: "%.4f bytes per sensor pixel", r)
        case .noRawData: detail = nil
        default: break
        }
        guard isNoRawData else { return camera.map { "\($0.name): \(plain)" } ?? plain }
        guard let camera else {
            return unrecognised
                ? "\(version) recognises no RAW format in this file, and the file names no camera"
                : "the file holds no raw image data (truncated?)" + (detail.map { ": \($0)" } ?? "")
        }
        if unrecognised && !camera.isListed(in: cameras) {
            return "\(camera.name): not in the camera list of \(version) (readback cameras)"
        }
        return "\(camera.name): the file holds no raw image data (truncated?)" + (detail.map { ": \($0)" } ?? "")
    }
}

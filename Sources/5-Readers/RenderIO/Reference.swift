import ColorScience
import Exiv2Bridge
import FileContent
import Foundation
import HEIF
import HeifCodec
import Isolation
import JPEGCodec
import RenderCheck

/// The capture's own rendering, as a viewer shows it: the largest embedded preview of a RAW that decodes and is a
/// real picture, the largest thumbnail item of a HEIF, or a JPEG source itself.
public struct ReferenceRender: Sendable {
    public var image: RenderImage
    /// What it is, for messages: "embedded preview 1024×683 (image/tiff)".
    public var description: String
    /// True when the reference's own orientation is in doubt (a preview whose shape disagrees with the sensor's, as
    /// when a raw editor rotated the preview but not the tag): a turned output is then a warning, not an error.
    public var orientationAmbiguous: Bool

    public init(image: RenderImage, description: String, orientationAmbiguous: Bool = false) {
        self.image = image
        self.description = description
        self.orientationAmbiguous = orientationAmbiguous
    }
}

/// A reference, or why there is none.
public enum ReferenceLookup: Sendable {
    case found(ReferenceRender)
    case none(reason: String)
    /// A decoder's worker died, hung or ran out of memory on the source's bytes (listing its previews, decoding one):
    /// the file gets that `decode.*` verdict, not a missing reference.
    case died(WorkerFailure)
}

/// Finds and decodes the reference rendering of a source file.
public enum ReferenceExtractor {
    /// A preview's decoded long side must be at least this (exiv2 lists 1×1 and 8×8 stubs of previews).
    public static let minimumLongSide = 100
    /// JPEGs are decoded scaled down to about this long side (the check compares at 512 px).
    public static let decodeSide = 2 * RenderComparison.maxSide

    /// The reference of `source`, chosen by its content (JPEG, HEIF, else a RAW exiv2 reads); the file is read once.
    public static func reference(for source: URL, decoders: any Decoders) -> ReferenceLookup {
        guard let bytes = try? FileContent.read(path: source.path) else {
            return .none(reason: "the source cannot be read")
        }
        return reference(bytes: bytes, path: source.path, decoders: decoders)
    }

    /// The reference of a source already in memory, chosen by its content: a JPEG is its own, a HEIF's is its
    /// thumbnail item (`heif`: its container when already parsed), any other file is a RAW whose previews exiv2 lists
    /// (`exiv2`: exiv2's reading of `bytes` with its previews, when already made; else it is made here, from memory).
    /// - Parameters:
    ///   - bytes: the whole source.
    ///   - path: its path, for messages.
    ///   - decoders: the decoders the source's bytes go through.
    public static func reference(
        bytes: [UInt8], path: String, heif: HEIFFile? = nil, exiv2: Result<Exiv2Document, DecodeFailure>? = nil,
        decoders: any Decoders
    ) -> ReferenceLookup {
        let head = Array(bytes.prefix(12))
        if head.count >= 2, head[0] == 0xFF, head[1] == 0xD8 { return fromJPEG(bytes, decoders: decoders) }
        // Canon's CR3 is an ISO BMFF file too ("ftyp" brand "crx "), but its previews are exiv2's to list.
        if head.count >= 12, String(decoding: head[4..<8], as: UTF8.self) == "ftyp",
            String(decoding: head[8..<12], as: UTF8.self) != "crx "
        {
            return fromHEIF(heif ?? HEIFFile(bytes: bytes), decoders: decoders)
        }
        let doc =
            exiv2
            ?? Result { () throws(DecodeFailure) in try decoders.exiv2(bytes: bytes, label: path, previews: true) }
        return fromRAW(doc, path: path, decoders: decoders)
    }

    // MARK: - RAW

    /// The largest embedded preview of a RAW that decodes, is at least `minimumLongSide` and is not constant, shown
    /// with the RAW's own orientation (previews are stored in sensor orientation). The file is read once.
    public static func fromRAW(_ path: String, decoders: any Decoders) -> ReferenceLookup {
        let doc: Result<Exiv2Document, DecodeFailure>
        do {
            let bytes = try FileContent.read(path: path)
            doc = Result { () throws(DecodeFailure) in try decoders.exiv2(bytes: bytes, label: path, previews: true) }
        } catch {
            doc = .failure(.refused(reason: error.description))
        }
        return fromRAW(doc, path: path, decoders: decoders)
    }

    /// `fromRAW(_:)` on exiv2's reading of the RAW, made with its previews (`Exiv2.read(bytes:label:previews:)`).
    public static func fromRAW(_ read: Result<Exiv2Document, DecodeFailure>, path: String, decoders: any Decoders)
        -> ReferenceLookup
    {
        // Counted for the read-once tests: a conversion and its read-back decode a RAW's previews once.
        FileContent.tally("reference", path: path)
        let doc: Exiv2Document
        switch read {
        case .success(let d): doc = d
        case .failure(let error):
            if let f = error.workerFailure { return .died(f) }
            // exiv2 prefixes some messages with the path; the report already names the file.
            let message =
                error.message.hasPrefix(path + ": ") ? String(error.message.dropFirst(path.count + 2)) : error.message
            return .none(reason: "exiv2 cannot list the source's previews: \(message)")
        }
        let previews = doc.previews
        if previews.isEmpty { return .none(reason: "the source has no embedded preview") }
        let orientation = integer(doc, key: "Exif.Image.Orientation") ?? 1
        let dngSpace = doc.entries.first { $0.tag == 0xC71A && $0.family == .exif }
            .flatMap { Int($0.text) }.flatMap(ColorSpace.fromDNGPreviewColorSpace)
        let sensor = largestImage(doc)
        var rejected: [String] = []
        let ordered = previews.enumerated().sorted { a, b in
            let (x, y) = (a.element.width * a.element.height, b.element.width * b.element.height)
            return x != y ? x > y : a.element.data.count > b.element.data.count
        }
        for (_, p) in ordered {
            let label = "\(p.width)×\(p.height) \(p.mimeType)"
            if p.data.isEmpty {
                rejected.append("\(label): its bytes are missing")
                continue
            }
            let decoded: Result<JPEGImage, TIFFImage.Failure>
            var icc: [UInt8]? = nil
            if p.mimeType == "image/jpeg" {
                let jpeg = Result { () throws(DecodeFailure) in try decoders.jpeg(p.data, minSide: decodeSide) }
                if case .failure(.worker(let f)) = jpeg { return .died(f) }
                decoded = jpeg.mapError { TIFFImage.Failure(String(describing: $0)) }
                icc = JPEGSegments(p.data).icc
            } else if p.mimeType == "image/tiff" {
                decoded = TIFFImage.decode(p.data, decoders: decoders)
            } else {
                rejected.append("\(label): not read")
                continue
            }
            switch decoded {
            case .failure(let why): rejected.append("\(label): \(why)")
            case .success(let img):
                if let problem = unusable(img) {
                    rejected.append("\(label): \(problem)")
                    continue
                }
                let space = icc.flatMap(ICCReader.colourSpace) ?? dngSpace ?? .sRGB
                let ambiguous =
                    sensor.map { disagree(storedAspect: Double(img.width) / Double(img.height), $0) } ?? false
                let image = RenderImage(width: img.width, height: img.height, codes: img.samples, space: space)
                return .found(
                    ReferenceRender(
                        image: image.oriented(ExifOrientation(exif: orientation)),
                        description: "embedded preview \(img.width)×\(img.height) (\(p.mimeType))",
                        orientationAmbiguous: ambiguous))
            }
        }
        return .none(reason: "no embedded preview is usable: " + rejected.joined(separator: "; "))
    }

    /// Why a decoded preview is not a picture (too small, constant), nil when it is one.
    static func unusable(_ img: JPEGImage) -> String? {
        if max(img.width, img.height) < minimumLongSide {
            return "\(img.width)×\(img.height) is smaller than \(minimumLongSide) px"
        }
        var lo = UInt8.max
        var hi = UInt8.min
        for v in img.samples {
            lo = min(lo, v)
            hi = max(hi, v)
        }
        return hi - lo < 8 ? "a constant frame" : nil
    }

    /// An Exif integer by key (exiv2's text form of the value).
    static func integer(_ doc: Exiv2Document, key: String) -> Int? {
        doc.entries.first { $0.key == key }.flatMap { Int($0.text.split(separator: " ").first ?? "") }
    }

    /// The largest ImageWidth × ImageLength of the file's IFDs (the sensor image), stored orientation.
    static func largestImage(_ doc: Exiv2Document) -> (width: Int, height: Int)? {
        var sizes: [String: (w: Int?, h: Int?)] = [:]
        for e in doc.entries where e.family == .exif && (e.tag == 256 || e.tag == 257) && e.group != "Thumbnail" {
            guard let v = Int(e.text.split(separator: " ").first ?? "") else { continue }
            if e.tag == 256 {
                sizes[e.group, default: (nil, nil)].w = v
            } else {
                sizes[e.group, default: (nil, nil)].h = v
            }
        }
        return sizes.values.compactMap { s in s.w.flatMap { w in s.h.map { (width: w, height: $0) } } }
            .max { $0.width * $0.height < $1.width * $1.height }
    }

    /// True when a preview stored with aspect `a` is landscape and the sensor portrait, or the reverse (each by more
    /// than 10 %).
    static func disagree(storedAspect a: Double, _ sensor: (width: Int, height: Int)) -> Bool {
        guard sensor.width > 0, sensor.height > 0 else { return false }
        let s = Double(sensor.width) / Double(sensor.height)
        return (a > 1.1 && s < 1 / 1.1) || (a < 1 / 1.1 && s > 1.1)
    }

    // MARK: - JPEG

    /// A JPEG source is its own reference: decoded, its Exif orientation applied, read in its ICC profile's space
    /// (or Adobe RGB when its Exif interoperability index says R03, else sRGB).
    public static func fromJPEG(_ bytes: [UInt8], decoders: any Decoders) -> ReferenceLookup {
        let img: JPEGImage
        do { img = try decoders.jpeg(bytes, minSide: decodeSide) } catch {
            if let f = error.workerFailure { return .died(f) }
            return .none(reason: "the JPEG source does not decode: \(error)")
        }
        if let problem = unusable(img) {
            return .none(reason: "the JPEG source is no picture to compare with: \(problem)")
        }
        let seg = JPEGSegments(bytes)
        let exif = seg.exif.flatMap { try? decoders.exiv2Exif($0) }
        let orientation = exif.flatMap { integer($0, key: "Exif.Image.Orientation") } ?? 1
        let adobe = exif?.entries.contains { $0.key == "Exif.Iop.InteroperabilityIndex" && $0.text.hasPrefix("R03") }
        let space = seg.icc.flatMap(ICCReader.colourSpace) ?? (adobe == true ? .adobeRGB : .sRGB)
        let image = RenderImage(width: img.width, height: img.height, codes: img.samples, space: space)
        return .found(
            ReferenceRender(image: image.oriented(ExifOrientation(exif: orientation)), description: "JPEG source"))
    }

    // MARK: - HEIF

    /// The largest thumbnail item of a HEIF source's primary image (found by the container parser, decoded by libheif
    /// re-wrapped alone, its irot/imir applied), read in its own colour signalling or else the primary's.
    public static func fromHEIF(_ bytes: [UInt8], decoders: any Decoders) -> ReferenceLookup {
        fromHEIF(HEIFFile(bytes: bytes), decoders: decoders)
    }

    /// `fromHEIF(_:)` on the source's container, already parsed.
    public static func fromHEIF(_ file: HEIFFile, decoders: any Decoders) -> ReferenceLookup {
        guard let primary = file.primaryItemID else { return .none(reason: "the HEIF source has no primary image") }
        let thumbs = file.thumbnails(of: primary).sorted { area(file, $0) > area(file, $1) }
        if thumbs.isEmpty { return .none(reason: "the HEIF source has no thumbnail item") }
        var rejected: [String] = []
        for t in thumbs {
            guard let single = file.standaloneFile(for: t) else {
                rejected.append("item \(t): cannot be re-wrapped")
                continue
            }
            do {
                let img = try decoders.heifPrimary(single, format: .rgb8)
                let fallback = colour(file, primary)
                let own = img.nclx != nil || img.icc != nil
                guard
                    let space = own
                        ? OutputImage.space(nclx: img.nclx, icc: img.icc)
                        : OutputImage.space(nclx: fallback.nclx, icc: fallback.icc)
                else {
                    rejected.append("item \(t): an HDR or unknown colour signalling")
                    continue
                }
                guard max(img.width, img.height) >= minimumLongSide else {
                    rejected.append("item \(t): \(img.width)×\(img.height) is smaller than \(minimumLongSide) px")
                    continue
                }
                // The re-wrapped item carries no transforms: its irot/imir are applied here, as libheif would.
                let image = RenderImage(width: img.width, height: img.height, codes: img.samples, space: space)
                    .oriented(file.orientation(of: t))
                return .found(
                    ReferenceRender(image: image, description: "thumbnail item \(t) \(img.width)×\(img.height)"))
            } catch {
                rejected.append("item \(t): \(error)")
            }
        }
        return .none(reason: "no thumbnail item is usable: " + rejected.joined(separator: "; "))
    }

    static func area(_ f: HEIFFile, _ id: UInt32) -> Int {
        if case .ispe(let w, let h)? = f.property("ispe", of: id) { return Int(w) * Int(h) }
        return 0
    }

    static func colour(_ f: HEIFFile, _ id: UInt32) -> (nclx: NCLX?, icc: [UInt8]?) {
        var nclx: NCLX? = nil
        var icc: [UInt8]? = nil
        for p in f.properties(of: id) {
            switch p.property {
            case .colrNCLX(let n): nclx = n
            case .colrICC(_, let profile): icc = profile
            default: break
            }
        }
        return (nclx, icc)
    }
}

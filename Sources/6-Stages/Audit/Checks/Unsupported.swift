import Findings
import Foundation
import HEIF
import ReportModel

// What the auditor cannot judge, named instead of misjudged: an image sequence (a still-image audit has nothing to
// decode), and an image whose derivation carries an essential property this reader does not understand (a reader
// that ignores it shows the wrong picture: ISO/IEC 23008-12 §6.5.1 forbids showing such an item, so its pixels are
// not a verdict on anything).
extension Checks {
    /// A sequence-only file (a `pict`/`vide` track, no `meta`, HEIF §7): `decode.unsupported`, and true, so the
    /// still-image checks are skipped.
    static func sequenceOnly(_ ctx: inout Context) -> Bool {
        guard let file = ctx.file, !file.boxes.contains(where: { $0.type == "meta" }), file.isImageSequence else {
            return false
        }
        let what = file.sequenceDescription
        ctx.add(
            .decodeUnsupported, "an image sequence (\(what)) and no still image: this tool audits still images only",
            Evidence(expected: "a still image (meta with a primary item)", actual: "image sequence: \(what)"))
        return true
    }

    /// Property types this reader understands (typed by the HEIF parser) or that describe without changing the
    /// pixels a decoder makes; an essential association of anything else makes the item unjudgeable.
    static let understoodEssential: Set<FourCC> = [
        "ispe", "pixi", "colr", "irot", "imir", "clap", "pasp", "auxC", "hvcC", "av1C", "clli", "mdcv",
        // Codec configurations of codecs libheif 1.15 lacks: the decode check names the codec (decode.unsupported).
        "avcC", "uncC", "cmpd",
    ]

    /// Essential properties not understood on the primary or anything it derives from:
    /// `container.unsupported-essential` for each. Returns true when there is one (the primary is then not decoded:
    /// a decoder that ignored the property would make pixels that mean nothing).
    static func unsupportedEssential(_ ctx: inout Context) -> Bool {
        guard let file = ctx.file, let primary = file.primaryItemID else { return false }
        var seen: Set<UInt32> = []
        var queue = [primary]
        var found = false
        while let id = queue.popLast(), seen.count < 4096 {
            guard seen.insert(id).inserted else { continue }
            queue += file.derivedInputs(of: id)
            for a in file.properties(of: id) where a.essential {
                guard case .unknown(let type, _) = a.property, !understoodEssential.contains(type) else { continue }
                found = true
                let role = id == primary ? "the primary item \(id)" : "item \(id), an input of the primary"
                ctx.add(
                    .containerUnsupportedEssential,
                    "\(role) has the essential property '\(type)', which Readback does not understand: "
                        + "its pixels are not judged",
                    Evidence(actual: "\(type) (essential)", item: id))
            }
        }
        return found
    }

    /// What in the primary's derivation libheif 1.15 cannot decode, for a person: an AVC-coded or uncompressed
    /// item, an identity (`iden`) or overlay (`iovl`) derivation. Nil when nothing known is in the way (a failure
    /// is then the file's: `decode.primary-failed`).
    static func unsupportedPrimaryFeature(_ file: HEIFFile) -> String? {
        guard let primary = file.primaryItemID else { return nil }
        let named: [FourCC: String] = [
            "avc1": "an AVC-coded image (avc1)", "unci": "an uncompressed image (unci)",
            "iden": "an identity derivation (iden: a rotation or crop of another item)",
            "iovl": "an overlay (iovl) of other items",
        ]
        var seen: Set<UInt32> = []
        var queue = [primary]
        while let id = queue.popLast(), seen.count < 4096 {
            guard seen.insert(id).inserted, let item = file.item(id) else { continue }
            if let what = named[item.type] { return id == primary ? what : "derived from \(what), item \(id)" }
            queue += file.derivedInputs(of: id)
        }
        return nil
    }

    /// An overlay (`iovl`) in the primary's derivation: libheif 1.15 crashes on it (SIGSEGV, no error to catch), so
    /// it is never handed to libheif; `decode.unsupported` names it. Returns true when there is one (the primary is
    /// then not decoded and its pixels are not judged). Only when decoding was asked for.
    static func overlayPrimary(_ ctx: inout Context) -> Bool {
        guard ctx.options.decode, let file = ctx.file, let item = file.overlayInPrimaryDerivation else { return false }
        let why = HEIFFile.overlayRefusal(item)
        ctx.decode.append(DecodeResult(target: .primary, status: .skipped, message: why))
        ctx.add(
            .decodeUnsupported, "\(why): not decoded, not judged by its pixels",
            Evidence(actual: "iovl (item \(item))", item: item))
        return true
    }
}

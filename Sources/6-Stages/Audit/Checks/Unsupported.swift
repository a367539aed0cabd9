import Findings
import Foundation
import HEIF
import ReportModel

// What the auditor cannot judge, named instead of misjudged: an image sequence (a still-image audit has nothing to
// decode), and an image whose derivation carries an essential property this reader does not understand (a reader
// that ignores it shows the wrong picture: ISO/IEC 23008-12 §6.5.1 forbids showing such an item, so its pixels are
// not a verdict on anything).
extension Checks {
    /// A sequence-only file (a `pict`/`vide` track, no `meta`, HEIF §7): its `decode.unsupported`, after which the
    /// still-image checks are skipped; nil for any other file.
    static func sequenceOnly(_ file: HEIFFile) -> Finding? {
        guard !file.boxes.contains(where: { $0.type == "meta" }), file.isImageSequence else { return nil }
        let what = file.sequenceDescription
        return Finding(
            .decodeUnsupported,
            message: "an image sequence (\(what)) and no still image: this tool audits still images only",
            evidence: Evidence(expected: "a still image (meta with a primary item)", actual: "image sequence: \(what)"))
    }

    /// Property types this reader understands (typed by the HEIF parser) or that describe without changing the
    /// pixels a decoder makes; an essential association of anything else makes the item unjudgeable.
    static let understoodEssential: Set<FourCC> = [
        "ispe", "pixi", "colr", "irot", "imir", "clap", "pasp", "auxC", "hvcC", "av1C", "clli", "mdcv",
        // Codec configurations of codecs libheif 1.15 lacks: the decode check names the codec (decode.unsupported).
        "avcC", "uncC", "cmpd",
    ]

    /// Essential properties not understood on the primary or anything it derives from:
    /// `container.unsupported-essential` for each. When there is one the primary is not decoded: a decoder that
    /// ignored the property would make pixels that mean nothing.
    static func unsupportedEssential(_ file: HEIFFile) -> [Finding] {
        var findings: [Finding] = []
        guard let primary = file.primaryItemID else { return findings }
        var seen: Set<UInt32> = []
        var queue = [primary]
        while let id = queue.popLast(), seen.count < 4096 {
            guard seen.insert(id).inserted else { continue }
            queue += file.derivedInputs(of: id)
            for a in file.properties(of: id) where a.essential {
                guard case .unknown(let type, _) = a.property, !understoodEssential.contains(type) else { continue }
                let role = id == primary ? "the primary item \(id)" : "item \(id), an input of the primary"
                findings.add(
                    .containerUnsupportedEssential,
                    "\(role) has the essential property '\(type)', which Readback does not understand: "
                        + "its pixels are not judged",
                    Evidence(actual: "\(type) (essential)", item: id))
            }
        }
        return findings
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
    /// it is never handed to libheif; `decode.unsupported` names it, and the primary's decode row says it was
    /// skipped. Nil without one; when there is one, the primary is not decoded and its pixels are not judged.
    static func overlayPrimary(_ file: HEIFFile) -> (row: DecodeResult, finding: Finding)? {
        guard let item = file.overlayInPrimaryDerivation else { return nil }
        let why = HEIFFile.overlayRefusal(item)
        return (
            DecodeResult(target: .primary, status: .skipped, message: why),
            Finding(
                .decodeUnsupported, message: "\(why): not decoded, not judged by its pixels",
                evidence: Evidence(actual: "iovl (item \(item))", item: item))
        )
    }
}

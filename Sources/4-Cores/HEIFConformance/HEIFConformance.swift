import Findings
import HEIF

/// The conformance of a HEIF file's container to the rules of HEIF (ISO/IEC 23008-12), MIAF (ISO/IEC 23000-22) and
/// the profiles and brands built on them: a pure reading of the parsed container (`HEIFFile`), one finding code per
/// rule, each problem's message ending with the clause it breaks. How severe a problem is (introduced by a
/// conversion, or the source's own) is the caller's to judge: the auditor's conformance check.
public enum HEIFConformance {
    /// One conformance problem of one item (or of the file, `item` nil).
    public struct Problem: Sendable, Equatable {
        public var code: FindingCode
        public var item: UInt32?
        public var message: String
        public var expected: String
        public var actual: String
    }

    /// A problem whose message ends with the clause it breaks.
    static func problem(
        _ code: FindingCode, _ item: UInt32?, _ what: String, clause: String, expected: String, actual: String
    ) -> Problem {
        Problem(
            code: code, item: item, message: (item.map { "item \($0): " } ?? "") + what + " (\(clause))",
            expected: expected, actual: actual)
    }

    /// The conformance problems of `file`: the file's structure, its images' properties, its derivations, its coded
    /// items and the MIAF profiles' constraints, in that order.
    public static func problems(_ file: HEIFFile) -> [Problem] {
        structureProblems(file) + imageProblems(file) + derivationProblems(file) + codedItemProblems(file)
            + profileConstraintProblems(file)
    }

    /// The problems of every coded image item of `file`, which the reference checker (GPAC's ComplianceWarden) checks
    /// only in part: `ispe` against the size the stream decodes to (HEIF §6.5.3.1; ComplianceWarden has no such
    /// check) and the parity of a `clap` under chroma subsampling (MIAF §7.3.6.7).
    static func codedItemProblems(_ file: HEIFFile) -> [Problem] {
        var out: [Problem] = []
        for item in file.items where item.type == "hvc1" || item.type == "av01" {
            guard case .ispe(let w, let h)? = file.property("ispe", of: item.id) else { continue }
            if case .hvcC(let c)? = file.property("hvcC", of: item.id), let sps = HEVCPictureSize(c),
                sps.width != Int(w) || sps.height != Int(h)
            {
                out.append(
                    Problem(
                        code: .conformanceIspeMismatch, item: item.id,
                        message:
                            "item \(item.id): ispe is \(w)×\(h) but its stream decodes to \(sps.width)×\(sps.height) "
                            + "(HEIF ISO/IEC 23008-12 §6.5.3.1: ispe is the size of the reconstructed image)",
                        expected: "\(sps.width)×\(sps.height)", actual: "\(w)×\(h)"))
            }
            guard let chroma = file.chromaFormat(of: item.id), chroma == 1 || chroma == 2,
                case .clap(let c)? = file.property("clap", of: item.id)
            else { continue }
            var odd: [String] = []
            func even(_ n: Int64, _ d: Int64) -> Bool { d != 0 && n % d == 0 && (n / d) % 2 == 0 }
            if !even(Int64(c.widthN), Int64(c.widthD)) { odd.append("width \(c.widthN)/\(c.widthD)") }
            // The left column: horizOff + (ispe width − clean width) / 2, over the common denominator 2 × horizOffD.
            let cw = c.widthD == 0 ? 0 : Int64(c.widthN / c.widthD)
            let left2 = 2 * Int64(c.horizOffN) + (Int64(w) - cw) * Int64(c.horizOffD)
            if !even(left2, 2 * Int64(c.horizOffD)) { odd.append("left offset") }
            if chroma == 1 {
                if !even(Int64(c.heightN), Int64(c.heightD)) { odd.append("height \(c.heightN)/\(c.heightD)") }
                let ch = c.heightD == 0 ? 0 : Int64(c.heightN / c.heightD)
                let top2 = 2 * Int64(c.vertOffN) + (Int64(h) - ch) * Int64(c.vertOffD)
                if !even(top2, 2 * Int64(c.vertOffD)) { odd.append("top offset") }
            }
            if !odd.isEmpty {
                let name = chroma == 1 ? "4:2:0" : "4:2:2"
                out.append(
                    Problem(
                        code: .conformanceClapOdd, item: item.id,
                        message:
                            "item \(item.id): its clap crops a \(name) image at an odd \(odd.joined(separator: ", ")) "
                            + "(MIAF ISO/IEC 23000-22 §7.3.6.7: under \(name) the crop must fall on whole chroma samples)",
                        expected: "even clap width\(chroma == 1 ? ", height" : "") and offsets",
                        actual: odd.joined(separator: ", ")))
            }
        }
        return out
    }
}

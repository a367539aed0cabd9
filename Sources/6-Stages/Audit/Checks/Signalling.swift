import ColorScience
import Findings
import Foundation
import HEIF
import ReportModel

extension Checks {
    /// True when the output declares high dynamic range: a PQ or HLG nclx, clli or mdcv, or a gain map. More than
    /// 8 bits alone is not HDR (a 10-bit SDR picture is common), and neither HEIF nor MIAF requires a `colr`.
    static func isHDR(_ file: HEIFFile, primary: UInt32, hasGainMap: Bool) -> Bool {
        if hasGainMap { return true }
        for p in file.properties(of: primary).map(\.property) {
            switch p {
            case .colrNCLX(let n) where n.hasHDRTransfer: return true
            case .clli, .mdcv: return true
            default: break
            }
        }
        return false
    }

    /// HDR signalling (ISO/IEC 23008-12 §6.5.5 `colr`, H.273 code points): an HDR or gain-map file whose primary
    /// has no `colr` (nclx or ICC) leaves its transfer undescribed (`signalling.nclx-missing`); a `pixi` that
    /// disagrees with the `hvcC` bit depth (ISO/IEC 23008-12 §6.5.6) is `signalling.bit-depth-mismatch`.
    /// - Parameters:
    ///   - file: the output's container.
    ///   - hasGainMap: whether the gain-map check found one.
    ///   - source: the source's container, when it is a HEIF file.
    static func signalling(_ file: HEIFFile, hasGainMap: Bool, source: HEIFFile?) -> [Finding] {
        var findings: [Finding] = []
        guard let primary = file.primaryItem else { return findings }
        if isHDR(file, primary: primary.id, hasGainMap: hasGainMap) {
            var colours = file.colours(of: primary.id)
            if colours.isEmpty, primary.type == "grid", let tile = file.derivedInputs(of: primary.id).first {
                colours = file.colours(of: tile)
            }
            if colours.isEmpty {
                let why = hasGainMap ? "has a gain map" : "is HDR (clli or mdcv)"
                findings.add(
                    .signallingNclxMissing,
                    "the output \(why) but its primary image has no colr (nclx or ICC): its transfer is undescribed",
                    Evidence(expected: "colr nclx or ICC", actual: "none", item: primary.id))
            }
        }
        // Against a HEIF source: an nclx the source's primary had and the output's primary lost (an ICC may
        // remain, but readers that key HDR handling on CICP lose the transfer).
        if let src = source, let sp = src.primaryItemID, let n = nclx(src, sp), nclx(file, primary.id) == nil,
            !findings.contains(where: { $0.code == .signallingNclxMissing })
        {
            findings.add(
                .signallingNclxMissing,
                "the source's primary has an nclx colr (\(n.colourPrimaries)/\(n.transferCharacteristics)/\(n.matrixCoefficients)); the output's primary has none",
                Evidence(
                    expected: "nclx \(n.colourPrimaries)/\(n.transferCharacteristics)/\(n.matrixCoefficients)",
                    actual: "none",
                    item: primary.id))
        }
        for item in file.imageItems {
            guard case .pixi(let bits)? = file.property("pixi", of: item.id), let declared = bits.first else {
                continue
            }
            var codedID = item.id
            if item.type == "grid", let t = file.derivedInputs(of: item.id).first { codedID = t }
            guard case .hvcC(let c)? = file.property("hvcC", of: codedID) else { continue }
            if Int(declared) != Int(c.bitDepthLuma) {
                findings.add(
                    .signallingBitDepthMismatch,
                    "item \(item.id) declares \(declared) bits in pixi but its hvcC codes \(c.bitDepthLuma)",
                    Evidence(expected: "\(c.bitDepthLuma)", actual: "\(declared)", item: item.id))
            }
        }
        return findings
    }

    /// The nclx of an image item, or of a grid's first tile when the grid has none.
    static func nclx(_ f: HEIFFile, _ item: UInt32) -> NCLX? {
        func own(_ id: UInt32) -> NCLX? {
            for p in f.colours(of: id) { if case .colrNCLX(let n) = p { return n } }
            return nil
        }
        if let n = own(item) { return n }
        if f.item(item)?.type == "grid", let t = f.derivedInputs(of: item).first { return own(t) }
        return nil
    }
}

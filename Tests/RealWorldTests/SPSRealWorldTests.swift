import Foundation
import HEIF
import HeifCodec
import Testing

/// The SPS reader (`HEVCPictureSize`) against libheif on the real HEIF files: each coded item decoded alone (no
/// transforms) has the size the SPS gives, coded size minus conformance window. Checked on every item whose `ispe`
/// disagrees with the SPS (the `conformance.ispe-mismatch` the auditor raises) and the first few others of each file.
@Test func theSPSSizeIsWhatLibheifDecodesOnRealFiles() throws {
    var checked = 0
    var mismatches: [String] = []
    for url in try RealWorldCorpus.files(["heic", "heif", "hif"]) {
        let f = HEIFFile(bytes: [UInt8](try Data(contentsOf: url)))
        var plain = 0
        for item in f.items where item.type == "hvc1" {
            guard case .hvcC(let c)? = f.property("hvcC", of: item.id), let sps = HEVCPictureSize(c),
                case .ispe(let w, let h)? = f.property("ispe", of: item.id), let alone = f.standaloneFile(for: item.id),
                let d = try? HeifDecoder.decodePrimarySize(alone)
            else { continue }
            let disagrees = sps.width != Int(w) || sps.height != Int(h)
            if !disagrees {
                plain += 1
                if plain > 3 { continue }
            } else {
                mismatches.append(
                    "\(url.lastPathComponent) item \(item.id): ispe \(w)×\(h), stream \(d.width)×\(d.height)")
            }
            checked += 1
            #expect(
                d.width == sps.width && d.height == sps.height,
                "\(url.lastPathComponent) item \(item.id): SPS says \(sps.width)×\(sps.height), libheif decodes \(d.width)×\(d.height)"
            )
        }
    }
    #expect(checked > 50, "only \(checked) items checked")
    print(
        "SPS sizes checked against libheif on \(checked) items; ispe disagreeing with the stream:\n"
            + mismatches.joined(separator: "\n"))
}

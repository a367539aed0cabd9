import Findings
import Foundation
import HEIF
import ReportModel

extension Checks {
    /// Orientation applied twice (libheif#227): the output's stored pixels already have the shape the source is
    /// displayed with, yet the output still asks for a quarter turn, through `irot`/`imir` (ISO/IEC 23008-12
    /// §6.5.10, §6.5.12) or, without a transform, through Exif Orientation (CIPA DC-008 tag 0x0112) that viewers
    /// honouring Exif apply. Without a source: a transform and an Exif Orientation that disagree
    /// (`orientation.inconsistent`, warning).
    static func orientation(_ ctx: inout Context) {
        guard let out = ctx.file, let p = out.primaryItemID, let outSize = displaySize(out, p, applying: false) else {
            return
        }
        let t = out.orientation(of: p)
        let e = exifOrientation(out, p)
        if let src = ctx.sourceHEIF, let sp = src.primaryItemID, let srcShown = displaySize(src, sp, applying: true) {
            guard srcShown.0 != srcShown.1 else { return }
            let storedUpright = (outSize.0 > outSize.1) == (srcShown.0 > srcShown.1)
            let asksQuarterTurn = (5...8).contains(t) || (t == 1 && (5...8).contains(e ?? 1))
            if storedUpright && asksQuarterTurn,
                !ctx.findings.contains(where: { $0.code == "orientation.double-rotation" })
            {
                let how = t != 1 ? "irot/imir (orientation \(t))" : "Exif Orientation \(e ?? 1)"
                ctx.add(
                    "orientation.double-rotation", .error,
                    "the output's pixels are already turned (\(outSize.0)×\(outSize.1), as the source is shown) and it still asks for a quarter turn through \(how)",
                    Evidence(
                        expected: "orientation 1 for upright pixels", actual: how, field: "IFD0:Orientation", item: p))
            }
            return
        }
        if t != 1, let e, e != 1, e != t {
            ctx.add(
                "orientation.inconsistent", .warning,
                "irot/imir say orientation \(t) but Exif Orientation says \(e): readers disagree on how to show the image",
                Evidence(expected: "\(t)", actual: "\(e)", field: "IFD0:Orientation", item: p))
        }
    }

    /// The primary's size as stored (`applying: false`) or as shown after its orientation (HEIF transform, else Exif).
    static func displaySize(_ f: HEIFFile, _ item: UInt32, applying: Bool) -> (UInt32, UInt32)? {
        guard let s = f.imageSize(of: item) else { return nil }
        guard applying else { return (s.width, s.height) }
        var o = f.orientation(of: item)
        if o == 1 { o = exifOrientation(f, item) ?? 1 }
        return (5...8).contains(o) ? (s.height, s.width) : (s.width, s.height)
    }

    /// IFD0 Orientation from the Exif item describing `item` (bounded TIFF read; nil when absent or malformed).
    static func exifOrientation(_ f: HEIFFile, _ item: UInt32) -> Int? {
        for x in f.metadataItems(describing: item) where f.item(x)?.isExif == true {
            guard let t = f.exifTIFF(of: x), t.count >= 8 else { continue }
            let le = t[0] == 0x49
            func u16(_ o: Int) -> Int? {
                guard o >= 0, o + 2 <= t.count else { return nil }
                return le ? Int(t[o]) | Int(t[o + 1]) << 8 : Int(t[o]) << 8 | Int(t[o + 1])
            }
            func u32(_ o: Int) -> Int? {
                guard let a = u16(o), let b = u16(o + 2) else { return nil }
                return le ? a | b << 16 : a << 16 | b
            }
            guard let ifd = u32(4), let n = u16(ifd), n < 1000 else { continue }
            for i in 0..<n {
                let e = ifd + 2 + 12 * i
                if u16(e) == 0x0112, let v = u16(e + 8) { return (1...8).contains(v) ? v : nil }
            }
        }
        return nil
    }
}

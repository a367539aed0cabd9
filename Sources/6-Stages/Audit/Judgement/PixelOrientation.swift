import ColorScience
import Fidelity
import Foundation
import HEIF
import HeifCodec
import Isolation
import Metadata

/// The pixel side of the orientation judgement: whether the output's coded image data is the source's own, and,
/// when it is not, which of the eight turns and mirrors of the source as shown the output as shown looks like.
///
/// Both pictures are decoded with libheif, which applies `irot`/`imir`/`clap` as every HEIF reader does, and reduced
/// to 32×32 luma (Fidelity's ``LumaGrid``, shared with any later render check). Only HEIF sources are compared: a JPEG
/// or RAW source's pixels need a decoder the audit does not link (the render check's reference previews can feed
/// ``LumaGrid`` later).
enum PixelOrientation {
    /// Pictures larger than this (in pixels) are not decoded for the check: their tags and sizes decide.
    static let maxPixels = 100_000_000

    /// The evidence for a pair of parsed files.
    /// - Parameters:
    ///   - decode: false (`--no-decode`) compares the coded data only.
    static func evidence(
        source: HEIFFile?, sourceBytes: [UInt8]?, output: HEIFFile?, outputBytes: [UInt8]?, decode: Bool,
        decoders: any Decoders
    )
        -> OrientationEvidence
    {
        guard let s = source, let o = output, let sp = s.primaryItemID, let op = o.primaryItemID else { return .none }
        if let a = sourceBytes, let b = outputBytes, a == b { return OrientationEvidence(sameCodedPixels: true) }
        if let a = codedData(s, sp), let b = codedData(o, op), a == b {
            return OrientationEvidence(sameCodedPixels: true)
        }
        guard decode, let sb = sourceBytes, let ob = outputBytes,
            let ss = s.shownSize(of: sp), let os = o.shownSize(of: op),
            ss.width * ss.height <= maxPixels, os.width * os.height <= maxPixels
        else { return .none }
        guard let a = grid(sb, s, sp, decoders), let b = grid(ob, o, op, decoders) else {
            return OrientationEvidence(note: "not compared: a picture does not decode")
        }
        let swap = quarterTurn(ss, os)
        let allowed = ExifOrientation.all.filter { swap == nil || $0.swapsAxes == swap }.map(\.exif)
        guard let m = OrientationMatch.compare(reference: a, candidate: b, allowed: allowed) else {
            return OrientationEvidence(note: "not compared: a picture is flat")
        }
        return OrientationEvidence(shownTransform: m.decided, note: m.summary)
    }

    /// The coded image data of an item: its own payload, or for a grid its tiles' payloads in order, with its size.
    static func codedData(_ f: HEIFFile, _ item: UInt32) -> [[UInt8]]? {
        guard let size = f.imageSize(of: item) else { return nil }
        let parts = [item] + (f.item(item)?.type == "grid" ? f.derivedInputs(of: item) : [])
        var out: [[UInt8]] = [[UInt8](String("\(size.width)x\(size.height)").utf8)]
        for p in parts {
            guard let b = f.payload(of: p), !b.isEmpty else { return nil }
            out.append(b)
        }
        return out
    }

    /// The primary as a HEIF reader shows it, as a 32×32 luma grid; libheif 1.15 refuses some files as a whole (iOS
    /// 18 layouts), whose primary then decodes re-wrapped alone.
    static func grid(_ bytes: [UInt8], _ f: HEIFFile, _ item: UInt32, _ decoders: any Decoders) -> LumaGrid? {
        // An overlay primary is never handed to libheif 1.15, which crashes on it (HEIFFile+Overlay.swift).
        if f.overlayInPrimaryDerivation != nil { return nil }
        let img =
            (try? decoders.heifPrimary(bytes, format: .firstPlane))
            ?? Rewrap.standalone(f, item).flatMap { try? decoders.heifPrimary($0, format: .firstPlane) }
        guard let img, img.width > 0, img.height > 0 else { return nil }
        let scale = Double((1 << img.bitDepth) - 1)
        let w = img.width
        return img.samples.withUnsafeBufferPointer { p in
            LumaGrid(width: w, height: img.height) { x, y in Double(p[y * w + x]) / scale }
        }
    }

    /// Whether two shown sizes differ by a quarter turn; nil when either is nearly square.
    static func quarterTurn(_ a: (width: Int, height: Int), _ b: (width: Int, height: Int)) -> Bool? {
        func squarish(_ s: (width: Int, height: Int)) -> Bool {
            abs(s.width - s.height) * 100 <= max(s.width, s.height)
        }
        guard !squarish(a), !squarish(b) else { return nil }
        return (a.width > a.height) != (b.width > b.height)
    }
}

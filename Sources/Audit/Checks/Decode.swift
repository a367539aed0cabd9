import Foundation
import HEIF
import HeifCodec
import ReportModel

extension Checks {
    /// Decodes the primary image and each gain map with libheif; a failure is `decode.primary-failed` or
    /// `decode.gainmap-failed`. Files libheif 1.15 refuses as a whole (iOS 18 layouts) are retried on the item
    /// re-wrapped alone (`HEIFFile.standaloneFile(for:)`), as platform-notes §2 describes.
    static func decode(_ ctx: inout Context) {
        guard let file = ctx.file else { return }
        let thumbs = ctx.options.thumbnails
        do {
            let img = try HeifDecoder.decodePrimary(ctx.output, format: .rgb8)
            ctx.decode.append(
                DecodeResult(target: "primary", status: "ok", width: img.width, height: img.height, bitDepth: img.codedBitDepth))
            if thumbs { ctx.thumbnails.primary = thumbnail(img) }
        } catch {
            let whole = "\(error)"
            if let p = file.primaryItemID, let single = Rewrap.standalone(file, p),
                let img = try? HeifDecoder.decodePrimary(single, format: .rgb8)
            {
                ctx.decode.append(
                    DecodeResult(
                        target: "primary", status: "ok", width: img.width, height: img.height, bitDepth: img.codedBitDepth,
                        message: "decoded re-wrapped; libheif refused the whole file: \(whole)"))
                ctx.add(
                    "decode.primary-rewrapped", .info,
                    "libheif \(Heif.version) refuses the file as a whole; the primary decodes on its own",
                    Evidence(actual: whole, item: p))
                if thumbs { ctx.thumbnails.primary = thumbnail(img) }
            } else {
                ctx.decode.append(DecodeResult(target: "primary", status: "failed", message: whole))
                ctx.add(
                    "decode.primary-failed", .error, "the primary image does not decode: \(whole)",
                    Evidence(item: file.primaryItemID))
            }
        }
        var tried: [UInt32: Bool] = [:]
        for i in ctx.gainMaps.indices {
            let g = ctx.gainMaps[i]
            guard let mapItem = gainMapImage(file, g) else { continue }
            guard ctx.gainMaps[i].data == .pass else {
                ctx.decode.append(DecodeResult(target: "gainmap", status: "skipped", message: "no data to decode"))
                continue
            }
            if let ok = tried[mapItem] {
                if !ok { ctx.gainMaps[i].data = .fail }
                continue
            }
            tried[mapItem] = false
            guard let single = Rewrap.standalone(file, mapItem) else {
                ctx.decode.append(
                    DecodeResult(target: "gainmap", status: "failed", message: "item \(mapItem): cannot be re-wrapped"))
                ctx.gainMaps[i].data = .fail
                ctx.add(
                    "decode.gainmap-failed", .error, "the gain map item \(mapItem) cannot be extracted for decoding",
                    Evidence(item: mapItem))
                continue
            }
            do {
                let img = try HeifDecoder.decodePrimary(single, format: .rgb8)
                ctx.decode.append(
                    DecodeResult(
                        target: "gainmap", status: "ok", width: img.width, height: img.height, bitDepth: img.codedBitDepth,
                        message: "item \(mapItem)"))
                tried[mapItem] = true
                if thumbs, ctx.thumbnails.gainMap == nil { ctx.thumbnails.gainMap = thumbnail(img, grey: true) }
            } catch {
                ctx.decode.append(DecodeResult(target: "gainmap", status: "failed", message: "item \(mapItem): \(error)"))
                ctx.gainMaps[i].data = .fail
                ctx.add(
                    "decode.gainmap-failed", .error, "the gain map item \(mapItem) does not decode: \(error)",
                    Evidence(item: mapItem))
            }
        }
    }

    /// The image item holding a gain map's pixels.
    static func gainMapImage(_ file: HEIFFile, _ g: GainMapResult) -> UInt32? {
        guard let item = g.item else { return nil }
        if g.kind == "iso" { return file.toneMapInputs(of: item)?.gainMap }
        return item
    }

    static func thumbnail(_ img: HeifDecodedImage, grey: Bool = false) -> String? {
        var px = Pixels(
            width: img.width, height: img.height, channels: img.channels, bitDepth: img.bitDepth, samples: img.samples)
        if grey && img.channels == 3 { px.channels = 3 }
        return Thumbnailer.dataURI(px, maxSide: 160)
    }
}

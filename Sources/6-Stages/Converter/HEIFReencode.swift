import ColorScience
import Foundation
import HEIF
import HeifCodec
import Isolation

// An already-rendered HEIC/HEIF: decoded with libheif and re-encoded as flat SDR (no gain map is made or carried),
// keeping its colour signalling and its metadata.

extension HEICConverter {
    static func convertHEIF(_ source: URL, _ inputBytes: [UInt8], _ options: ConvertOptions, _ decoders: any Decoders)
        throws -> ConvertedImage
    {
        let name = source.lastPathComponent
        var clock = Stopwatch()
        let decoded = try decodeRendered(inputBytes, options: options, file: name, decoders: decoders)
        clock.lap("decode")
        var losses = uncarried(inputBytes)
        // Keep the source's colour signalling: its nclx, else (ICC only) an 'unspecified' nclx so the ICC governs.
        let nclx =
            decoded.nclx ?? (decoded.icc != nil ? .unspecified : .sRGB)
        if decoded.nclx == nil && decoded.icc == nil {
            losses.append("source had no colour signalling; written as sRGB")
        }
        var parts = EncodedParts()
        let (primary, layout) = try encodeRendered(decoded, nclx: nclx, options: options, file: name)
        parts.primary = primary
        clock.lap("encode")
        let md = try OutputMetadata.build(
            for: source, bytes: inputBytes, width: decoded.width, height: decoded.height, options: options,
            decoders: decoders, losses: &losses)
        clock.lap("metadata")
        let bytes = try HEICAssembler.assemble(
            parts, exif: md.exif, xmp: md.xmp, width: decoded.width, height: decoded.height, file: name)
        clock.lap("assemble")
        clock.total()
        let hdrTransfer = nclx.hasHDRTransfer
        let decision = HDRDecision(
            gainMap: false,
            reason: hdrTransfer
                ? "already-rendered HDR input (nclx transfer \(nclx.transferCharacteristics)): re-encoded as is, no gain map"
                : "already-rendered input: flat SDR",
            measuredHeadroomStops: 0,
            fractionAboveOneStop: 0, clipHeadroomStops: 0)
        var result = ConversionResult(
            source: name, inputKind: .renderedHEIF, width: decoded.width, height: decoded.height, make: "", model: "",
            hdr: decision, gainMap: nil, knownLosses: losses, timings: clock.laps, inputBytes: inputBytes.count,
            outputBytes: bytes.count, options: options)
        result.primaryTiles = layout?.count ?? 0
        result.sidecar = md.sidecar
        return ConvertedImage(bytes: bytes, result: result)
    }

    /// The file's primary image decoded by libheif from its bytes (16-bit samples when 10-bit output is asked for).
    static func decodeRendered(_ inputBytes: [UInt8], options: ConvertOptions, file: String, decoders: any Decoders)
        throws -> HeifDecodedImage
    {
        // Never hand libheif 1.15 an overlay primary: it crashes on one (HEIFFile+Overlay.swift).
        if let why = HEIFFile.libheifOverlayRefusal(inputBytes) {
            throw ConvertError(file: file, reason: "cannot decode: \(why)")
        }
        do {
            let parsed = HEIFFile(bytes: inputBytes)
            let item = parsed.primaryItemID
            let pixels = item.flatMap(parsed.imageSize(of:)).map { Int($0.width) * Int($0.height) }
            return try decoders.heifPrimary(
                inputBytes, format: options.bitDepth == 10 ? .rgbNative : .rgb8, item: item, pixels: pixels)
        } catch {
            throw ConvertError(file: file, failure: error, reason: "cannot decode: \(error)")
        }
    }

    /// What a rendered source carries that the flat SDR output does not: its gain map, its auxiliary images.
    static func uncarried(_ inputBytes: [UInt8]) -> [String] {
        var losses: [String] = []
        let parsed = HEIFFile(bytes: inputBytes)
        if let p = parsed.primaryItemID {
            if parsed.appleGainMap(of: p) != nil || !parsed.toneMapItems.isEmpty {
                losses.append("source gain map not carried: rendered inputs are converted as flat SDR")
            }
            if !parsed.auxiliaryImages(of: p).filter({ $0.urn != HEIFFile.appleGainMapURN }).isEmpty {
                losses.append("source auxiliary images (depth, mattes) not carried")
            }
        }
        return losses
    }

    /// Re-encodes the decoded primary at 8 bits, or at 10 when the source has more than 8, as one item or a grid.
    static func encodeRendered(
        _ decoded: HeifDecodedImage, nclx: NCLX, options: ConvertOptions, file: String
    ) throws -> (image: CodedImage, layout: TileLayout?) {
        let pixels: HeifPixels
        var depth = 8
        if decoded.bitDepth > 8 {
            depth = 10
            let shift = decoded.bitDepth - 10
            pixels = .rgb16(
                width: decoded.width, height: decoded.height, bitDepth: 10,
                samples: shift >= 0
                    ? decoded.samples.map { $0 >> UInt16(shift) } : decoded.samples.map { $0 << UInt16(-shift) })
        } else {
            pixels = .rgb8(width: decoded.width, height: decoded.height, samples: decoded.samples.map { UInt8($0) })
        }
        let settings = HeifEncodeSettings(
            quality: options.quality, bitDepth: depth, chroma: options.chroma, preset: options.speed, nclx: nclx,
            icc: decoded.icc)
        let layout = try TileLayout.coding(
            width: decoded.width, height: decoded.height, tileSize: options.tileSize, file: file)
        guard let layout else {
            return (.single(try TiledEncoder.encodeItem(pixels, settings: settings, file: file)), nil)
        }
        let tiles = try TiledEncoder.encodeGrid(
            layout: layout, channels: 3, bitDepth: depth, settings: settings, options: options, file: file
        ) { y0, y1, band in
            let n = (y1 - y0) * decoded.width * 3
            switch pixels {
            case .rgb8(_, _, let s):
                s.withUnsafeBytes { band.copyMemory(from: $0.baseAddress! + y0 * decoded.width * 3, byteCount: n) }
            case .rgb16(_, _, _, let s):
                s.withUnsafeBytes {
                    band.copyMemory(from: $0.baseAddress! + y0 * decoded.width * 6, byteCount: 2 * n)
                }
            case .mono8: break
            }
        }
        return (.grid(layout, tiles), layout)
    }
}

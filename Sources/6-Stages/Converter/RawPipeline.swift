import ColorScience
import Exiv2Bridge
import Fidelity
import FileContent
import Foundation
import GainMap
import HeifCodec
import Isolation
import RawDecoder
import RenderIO

// The RAW path: decode (LibRaw, in place, upright), decide (`HDRPolicy`), render band by band into the encoders,
// the gain map, metadata and assembly. Also the two renders the quality ladder and the tests measure against.

extension HEICConverter {
    /// The SDR and HDR renditions of a RAW as linear planar images (what `convert` encodes), and the HDR decision.
    /// - Parameters:
    ///   - source: the RAW.
    ///   - options: colour space and HDR mode are used.
    /// - Returns: both renditions at full size.
    /// - Throws: `ConvertError`.
    public static func renditions(
        of source: URL, options: ConvertOptions = ConvertOptions(), decoders: any Decoders
    ) throws -> Renditions {
        let (decision, pass, _, _) = try openPass(
            source, bytes: try readRAW(source), options: options, decoders: decoders, gainMap: { _ in false })
        guard let img = pass.frame else { throw ConvertError(file: source.lastPathComponent, reason: "no frame") }
        let r = pass.renderer
        let n = img.width * img.height
        var sdr = [Float](repeating: 0, count: n * 3)
        var hdr = [Float](repeating: 0, count: n * 3)
        var row = [UInt16](repeating: 0, count: 3 * img.width)
        for i in 0..<n {
            if i % img.width == 0 { row.withUnsafeMutableBufferPointer { img.copyRow(i / img.width, into: $0) } }
            let p = row.withUnsafeBufferPointer { r.pixel($0, i % img.width) }
            hdr[i] = p.rgb.0
            hdr[n + i] = p.rgb.1
            hdr[2 * n + i] = p.rgb.2
            sdr[i] = p.rgb.0 * p.scale
            sdr[n + i] = p.rgb.1 * p.scale
            sdr[2 * n + i] = p.rgb.2 * p.scale
        }
        return Renditions(
            sdr: try LinearImage(width: img.width, height: img.height, channels: 3, pixels: sdr),
            hdr: try LinearImage(width: img.width, height: img.height, channels: 3, pixels: hdr), decision: decision)
    }

    /// The exact frame `convert` encodes as the primary of a RAW: decode (LibRaw, upright) + SDR render at
    /// `options.bitDepth` in `options.colorSpace`, before HEVC (the same render pass, untiled). For fidelity
    /// measurements against the encoded output.
    /// - Parameters:
    ///   - source: a RAW (see `rawExtensions`).
    ///   - options: colour space and bit depth are used (the HDR mode and tiling do not change the SDR base).
    /// - Returns: interleaved RGB, `.rgb8` for 8-bit or `.rgb16` (10-bit codes) for 10-bit, at the upright size.
    /// - Throws: `ConvertError` naming the file and the reason.
    public static func renderedFrame(
        of source: URL, options: ConvertOptions = ConvertOptions(), decoders: any Decoders
    ) throws -> HeifPixels {
        let name = source.lastPathComponent
        if let p = options.validationProblem() { throw ConvertError(file: name, reason: p) }
        guard rawExtensions.contains(source.pathExtension.lowercased()) else {
            throw ConvertError(file: name, reason: "renderedFrame needs a RAW input, got '.\(source.pathExtension)'")
        }
        let (_, pass, _, _) = try openPass(
            source, bytes: try readRAW(source), options: options, decoders: decoders, gainMap: { _ in false })
        return renderWhole(pass)
    }

    /// The visible noise of a RAW's frame as `convert` measures it (`NoiseLevel`, 8-bit code values) and the quality
    /// the options give it: the quality ladder and the benchmark encode their crops at what the converter would use.
    /// - Throws: `ConvertError` naming the file and the reason.
    public static func noise(of source: URL, options: ConvertOptions = ConvertOptions(), decoders: any Decoders) throws
        -> (sigma: Double?, quality: Int)
    {
        let (_, pass, _, _) = try openPass(
            source, bytes: try readRAW(source), options: options, decoders: decoders, gainMap: { _ in false })
        defer { pass.releaseFrame() }
        let sigma = pass.noiseSigma()
        return (sigma, options.frameQuality(sigma: sigma))
    }

    /// The bytes of a RAW, read once (`FileContent`).
    static func readRAW(_ source: URL) throws -> [UInt8] {
        do { return try FileContent.read(path: source.path) } catch {
            throw ConvertError(file: source.lastPathComponent, reason: "cannot read the file: \(error.kind)")
        }
    }

    /// Decodes `source` in place from its bytes in memory (LibRaw's buffer, no copies), takes the HDR decision on it
    /// and prepares the render pass; the pass holds the only reference to the frame. Also returns the reference render
    /// the camera look decoded (nil when the look did not look for one).
    static func openPass(
        _ source: URL, bytes: [UInt8], options: ConvertOptions, decoders: any Decoders, gainMap: (HDRDecision) -> Bool
    ) throws -> (HDRDecision, RenderPass, RawMetadata, ReferenceLookup?) {
        let (meta, frame): (RawMetadata, RawFrame)
        // The camera look's preview is looked up beside LibRaw's decode; always waited for, even when LibRaw fails.
        let prefetch =
            options.look == .camera ? ReferencePrefetch(bytes: bytes, path: source.path, decoders: decoders) : nil
        defer { _ = prefetch?.wait() }
        do {
            (meta, frame) = try decoders.raw(
                bytes: bytes, name: source.lastPathComponent, options: RawDecodeOptions(workingSpace: .proPhoto))
        } catch {
            // LibRaw's refusal names the camera; a worker's death is the file's `decode.*` code.
            if case .library(.libRaw(let e)) = error {
                throw ConvertError(file: e.file, reason: RawRefusal.reason(e, bytes: bytes, decoders: decoders))
            }
            throw ConvertError(file: source.lastPathComponent, failure: error)
        }
        var r = Renderer(meta: meta, space: options.colorSpace)
        // The camera's look (before the HDR decision: headroom is measured over the white the render will show).
        let look: LookSummary
        var reference: ReferenceLookup? = nil
        switch options.look {
        case .neutral: look = LookSummary(applied: false, reason: "neutral render (--look neutral)")
        case .camera:
            guard let prefetch else { preconditionFailure("the camera look's lookup was started with the decode") }
            let (found, planes) = prefetch.wait()
            // exiv2 or libjpeg-turbo died on the RAW's previews: the file's verdict, as LibRaw's death would be.
            if case .died(let failure) = found {
                throw ConvertError(file: source.lastPathComponent, failure: .worker(failure))
            }
            (r, look) = cameraLook(found, frame: frame, renderer: r, space: options.colorSpace, lab: planes)
            reference = found
        }
        let decision = HDRPolicy.decide(
            frame, renderer: r, kind: meta.isLinearDNG ? .linearDNG : .mosaicRAW, hdr: options.hdr)
        let pass = RenderPass(
            frame: frame, renderer: r, bitDepth: options.bitDepth, gainMap: gainMap(decision), look: look)
        return (decision, pass, meta, reference)
    }

    /// Renders every row of `pass` into one full-size buffer and releases the frame.
    static func renderWhole(_ pass: RenderPass) -> HeifPixels {
        let w = pass.width
        let h = pass.height
        let n = w * h * 3
        defer { pass.releaseFrame() }
        if pass.bitDepth == 8 {
            var buf = [UInt8](repeating: 0, count: n)
            buf.withUnsafeMutableBytes { pass.render(rows: 0, h, into: $0.baseAddress!) }
            return .rgb8(width: w, height: h, samples: buf)
        }
        var buf = [UInt16](repeating: 0, count: n)
        buf.withUnsafeMutableBytes { pass.render(rows: 0, h, into: $0.baseAddress!) }
        return .rgb16(width: w, height: h, bitDepth: 10, samples: buf)
    }

    static func convertRAW(_ source: URL, _ bytes: [UInt8], _ options: ConvertOptions, _ decoders: any Decoders) throws
        -> ConvertedImage
    {
        let name = source.lastPathComponent
        var clock = Stopwatch()
        let (decision, pass, meta, reference) = try openPass(
            source, bytes: bytes, options: options, decoders: decoders, gainMap: \.gainMap)
        clock.lap("decode")
        let kind: InputKind = meta.isLinearDNG ? .linearDNG : .mosaicRAW
        let width = pass.width
        let height = pass.height

        // The quality: lower on a visibly noisy frame (NoiseLevel), measured on the frame as the encoder will see it.
        let sigma = options.noiseAdaptive ? pass.noiseSigma() : nil
        let quality = options.frameQuality(sigma: sigma)
        clock.lap("noise")
        // Primary: rendered band by band straight into the tile encoders (or whole, untiled), then LibRaw is freed.
        let layout = try TileLayout.coding(
            width: width, height: height, tileSize: options.primaryTileSize(width: width, height: height), file: name)
        let settings = HeifEncodeSettings(
            quality: quality, bitDepth: options.bitDepth, chroma: options.chroma, preset: options.speed,
            nclx: options.colorSpace == .displayP3 ? .displayP3 : .sRGB,
            icc: options.icc ? ICCProfile.profile(for: options.colorSpace) : nil,
            x265: options.primaryX265Options(onePicture: layout == nil))
        var parts = EncodedParts()
        let primary = try encodePrimary(pass, layout: layout, settings: settings, options: options, file: name) {
            try sideParts(pass, computed: $0, options: options, nclx: settings.nclx, file: name)
        }
        parts.primary = primary.image
        clock.lap("encode")
        clock.move(primary.renderSeconds, from: "encode", to: "render")
        clock.move(primary.side.gainMapSeconds, from: "encode", to: "gainmap")
        parts.gainMap = primary.side.gainMap
        parts.thumbnail = primary.side.thumbnail
        let summary = primary.side.summary

        // Optional DNG opcodes nobody applies (mandatory ones were refused by the decoder) are known losses.
        var losses = meta.dngOpcodesSkipped.map { "DNG \($0) not applied" }
        let md = try OutputMetadata.build(
            for: source, bytes: bytes, width: width, height: height, options: options, decoders: decoders,
            losses: &losses)
        clock.lap("metadata")
        let output = try HEICAssembler.assemble(
            parts, exif: md.exif, xmp: md.xmp, width: width, height: height, file: name)
        clock.lap("assemble")
        clock.total()

        var result = ConversionResult(
            source: name, inputKind: kind, width: width, height: height, make: meta.make, model: meta.model,
            hdr: decision, gainMap: summary, knownLosses: losses, timings: clock.laps, inputBytes: meta.fileSize,
            outputBytes: output.count, options: options)
        result.primaryTiles = layout?.count ?? 0
        result.sidecar = md.sidecar
        result.noiseSigma = sigma.map { ($0 * 100).rounded() / 100 }
        result.qualityUsed = quality
        result.look = pass.look
        result.clippedFraction = (meta.clippedFraction * 10_000).rounded() / 10_000
        result.clippedByChannel = meta.clippedByChannel.mapValues { ($0 * 10_000).rounded() / 10_000 }
        return ConvertedImage(bytes: output, result: result, reference: reference)
    }

    /// What is coded beside the primary, from the render's statistics alone: the gain map (its values computed
    /// unless given) with its summary, and the thumbnail; `gainMapSeconds` is the gain map's share.
    struct SideParts {
        var gainMap: EncodedGainMap?
        var summary: GainMapSummary?
        var thumbnail: CodedItem?
        var gainMapSeconds = 0.0
    }

    /// Codes the `SideParts` of a rendered pass.
    static func sideParts(
        _ pass: RenderPass, computed: ComputedGainMap?, options: ConvertOptions, nclx: NCLX, file: String
    ) throws -> SideParts {
        var side = SideParts()
        if pass.gainMap {
            let t0 = DispatchTime.now().uptimeNanoseconds
            let values = try computed ?? GainMapEncoder.compute(pass, file: file)
            let (gm, summary) = try GainMapEncoder.encode(pass, values, options: options, file: file)
            (side.gainMap, side.summary) = (gm, summary)
            side.gainMapSeconds = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
        }
        if options.thumbnail, let t = pass.thumbnail() {
            // A thumbnail is smaller than one tile: one thread, no x265 pool (see HeifEncoder.encode's `threads`).
            side.thumbnail = try TiledEncoder.encodeItem(
                t, settings: HeifEncodeSettings(quality: 60, preset: options.speed, nclx: nclx), threads: 1, file: file)
        }
        return side
    }

    /// The primary of a RAW: rendered band by band straight into the tile encoders (or whole, untiled), then LibRaw's
    /// buffers are freed, and its side parts (`side`, given the gain map's values when they were computed). Tiled,
    /// the gain map's values are computed from the render's cell statistics on the producer thread while the last
    /// tiles encode, and the side parts are coded after the tiles. Untiled, the side parts are coded while x265 codes
    /// the frame: its pool keeps both cores busy only until the last rows, and a small frame's gain map and thumbnail
    /// were a tenth of its conversion on one core after it.
    static func encodePrimary(
        _ pass: RenderPass, layout: TileLayout?, settings: HeifEncodeSettings, options: ConvertOptions, file: String,
        side: @escaping @Sendable (ComputedGainMap?) throws -> SideParts
    ) throws -> (image: CodedImage, renderSeconds: Double, side: SideParts) {
        let image: CodedImage
        var renderSeconds = 0.0
        var gainMapValues: ComputedGainMap?
        var gainMapSeconds = 0.0
        var sideOut: SideParts
        pass.releaseFramePages()
        if let layout {
            let tiles = try TiledEncoder.encodeGrid(
                layout: layout, channels: 3, bitDepth: options.bitDepth, settings: settings, options: options,
                file: file,
                afterLastBand: {
                    // LibRaw's buffers go now; the gain map's values need only the render's cell statistics, so
                    // they are computed here, on the otherwise idle producer thread, while the last tiles encode.
                    pass.releaseFrame()
                    if pass.gainMap {
                        let t0 = DispatchTime.now().uptimeNanoseconds
                        gainMapValues = try GainMapEncoder.compute(pass, file: file)
                        gainMapSeconds = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
                    }
                },
                fill: { y0, y1, band in
                    let t0 = DispatchTime.now().uptimeNanoseconds
                    pass.render(rows: y0, y1, into: band)
                    renderSeconds += Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
                })
            pass.releaseFrame()
            image = .grid(layout, tiles)
            sideOut = try side(gainMapValues)
            sideOut.gainMapSeconds += gainMapSeconds
        } else {
            let t0 = DispatchTime.now().uptimeNanoseconds
            let pixels = renderWhole(pass)
            renderSeconds = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
            let (item, beside) = Parallel.both(
                { Result { try TiledEncoder.encodeItem(pixels, settings: settings, file: file) } },
                { Result { try side(nil) } })
            image = .single(try item.get())
            sideOut = try beside.get()
            // Coded beside the primary, the gain map's time is within the encode stage's (the stages add up to the
            // wall time; moved out, the encode stage would show a few milliseconds).
            sideOut.gainMapSeconds = 0
        }
        return (image, renderSeconds, sideOut)
    }
}

import ColorScience
import Foundation
import HeifCodec
import RawDecoder

/// The decoders in worker processes (`WorkerPool`): each call is a request to a locked-down worker, supervised by
/// this process. Same results as `InProcessDecoders`; a crash, hang or exhaustion is a `DecodeFailure.worker` instead
/// of the end of the run. `forFile()` gives a file's work one `--file-timeout` for all of its requests.
public struct WorkerDecoders: Decoders {
    public let pool: WorkerPool
    /// The file's allowance when these decoders work on one file (`forFile()`); nil: each request has its own.
    let budget: FileBudget?

    public init(pool: WorkerPool) {
        self.pool = pool
        budget = nil
    }

    init(pool: WorkerPool, budget: FileBudget?) {
        self.pool = pool
        self.budget = budget
    }

    public func forFile() -> any Decoders {
        WorkerDecoders(pool: pool, budget: FileBudget(timeout: pool.config.timeout))
    }

    /// LibRaw's decode of a RAW in memory (`LibRawDecoder.decodeInPlace(bytes:name:options:)`) in a worker.
    public func raw(bytes: [UInt8], name: String, options: RawDecodeOptions) throws(DecodeFailure)
        -> (RawMetadata, RawFrame)
    {
        let op = Operation.raw(
            name: name, workingSpace: options.workingSpace.rawValue, halfSize: options.halfSize,
            applyOrientation: options.applyOrientation)
        let a = try request(op, bytes, stage: "LibRaw open")
        guard case .raw(let meta, let f) = a.answer, let px = a.pixels, f.width > 0, f.height > 0,
            let space = RawWorkingSpace(rawValue: f.workingSpace)
        else { throw .protocolError("an incomplete RAW answer") }
        let base = UnsafePointer(px.base.assumingMemoryBound(to: UInt16.self))
        // LibRaw's image where the worker's LibRaw left it (the frame arena), or packed upright rows.
        if let layout = f.libRawImage {
            guard
                let frame = RawFrame(
                    libRawImage: base, count: px.count / 2, layout: layout, width: f.width, height: f.height,
                    workingSpace: space, owner: px, sharedView: true)
            else { throw .protocolError("a RAW frame outside its memory") }
            pool.countFrame(inPlace: true)
            return (meta, frame)
        }
        let (pixels, overflow) = f.width.multipliedReportingOverflow(by: f.height)
        guard !overflow, pixels <= px.count / 6 else { throw .protocolError("a RAW frame outside its memory") }
        pool.countFrame(inPlace: false)
        let frame = RawFrame(
            packedRGB: base, width: f.width, height: f.height, workingSpace: space, owner: px, sharedView: true)
        return (meta, frame)
    }

    /// libheif's decode of the primary image (`HeifDecoder.decodePrimary(_:format:)`) in a worker.
    /// - Parameters:
    ///   - item: the primary's item id, to name the stage a worker died in.
    ///   - pixels: the image's pixel count from the container, for the default deadline.
    public func heifPrimary(_ bytes: [UInt8], format: HeifDecodeFormat, item: UInt32?, pixels: Int?)
        throws(DecodeFailure) -> HeifDecodedImage
    {
        try Self.image(try heif(.heifPrimary(format: Self.formatName(format), item: item), bytes, pixels: pixels)).0
    }

    /// libheif's reduced decode of the primary (`HeifDecoder.decodePrimaryReduced(_:minSide:)`) in a worker.
    public func heifPrimaryReduced(_ bytes: [UInt8], minSide: Int, item: UInt32?, pixels: Int?)
        throws(DecodeFailure) -> (image: HeifDecodedImage, size: HeifDecodedSize)
    {
        Self.reduced(try Self.image(try heif(.heifReduced(minSide: minSide, item: item), bytes, pixels: pixels)))
    }

    /// The reduced decode of a grid primary tile by tile (`HeifDecoder.reducedGridOrWhole`) in a worker: `bytes` are
    /// the file's `fileBytes`, then each tile's NAL units (`Rewrap.gridTiles` in Audit), `tileBytes` long each.
    public func heifGridReduced(
        _ bytes: [UInt8], fileBytes: Int, tileBytes: [Int], geometry: GridGeometry, minSide: Int, item: UInt32?,
        pixels: Int?
    ) throws(DecodeFailure) -> (image: HeifDecodedImage, size: HeifDecodedSize) {
        let op = Operation.heifGridReduced(
            minSide: minSide, item: item, geometry: geometry, fileBytes: fileBytes, tileBytes: tileBytes)
        return Self.reduced(try Self.image(try heif(op, bytes, pixels: pixels)))
    }

    /// libheif's size-only decode of the primary (`HeifDecoder.decodePrimarySize(_:)`) in a worker.
    public func heifPrimarySize(_ bytes: [UInt8], item: UInt32?, pixels: Int?) throws(DecodeFailure)
        -> HeifDecodedSize
    {
        let a = try heif(.heifSize(item: item), bytes, pixels: pixels)
        guard case .heif(let info) = a.answer else { throw .protocolError("an incomplete HEIF answer") }
        return HeifDecodedSize(
            width: info.width, height: info.height, codedBitDepth: info.codedBitDepth,
            firstPlaneSpread: info.firstPlaneSpread)
    }

    /// Test only: asks a worker to do what its sandbox forbids ("socket", "write <path>"), to see it stopped.
    public func forbidden(_ what: String) throws(DecodeFailure) {
        _ = try request(.forbidden(what: what), [], stage: "the forbidden call")
    }

    /// Sends `op` with `bytes` to a worker of the pool under this file's budget (and a request's CPU-time backstop),
    /// and waits for its answer; `stage` names what runs until the worker names it. Whatever went wrong is thrown as
    /// the one `DecodeFailure`.
    func request(_ op: Operation, _ bytes: [UInt8], pixels: Int? = nil, stage: String) throws(DecodeFailure)
        -> WorkerProcess.Answer
    {
        try DecodeFailure.catching {
            try pool.withWorker { try $0.run(op, bytes: bytes, pixels: pixels, stage: stage, budget: budget) }
        }
    }

    private func heif(_ op: Operation, _ bytes: [UInt8], pixels: Int?) throws(DecodeFailure) -> WorkerProcess.Answer {
        try request(op, bytes, pixels: pixels, stage: "libheif read")
    }

    static func stageName(item: UInt32?) -> String { item.map { "libheif decode item \($0)" } ?? "libheif decode" }

    private static func image(_ a: WorkerProcess.Answer) throws(DecodeFailure) -> (HeifDecodedImage, HeifInfo) {
        guard case .heif(let info) = a.answer, let px = a.pixels, px.count >= info.samples * 2 + (info.iccBytes ?? 0)
        else { throw .protocolError("an incomplete HEIF answer") }
        let samples = Array(
            UnsafeBufferPointer(start: px.base.assumingMemoryBound(to: UInt16.self), count: info.samples))
        let nclx = info.nclx.map {
            NCLX(
                colourPrimaries: $0.primaries, transferCharacteristics: $0.transfer, matrixCoefficients: $0.matrix,
                fullRange: $0.fullRange)
        }
        let icc = info.iccBytes.map {
            Array(UnsafeRawBufferPointer(start: px.base + info.samples * 2, count: $0))
        }
        let img = HeifDecodedImage(
            decoded: samples, width: info.width, height: info.height, bitDepth: info.bitDepth,
            channels: info.channels, nclx: nclx, icc: icc, codedBitDepth: info.codedBitDepth)
        return (img, info)
    }

    /// A reduced decode's image, and the full size the worker decoded.
    private static func reduced(_ r: (HeifDecodedImage, HeifInfo)) -> (image: HeifDecodedImage, size: HeifDecodedSize) {
        let (img, info) = r
        return (
            img,
            HeifDecodedSize(
                width: info.fullWidth ?? img.width, height: info.fullHeight ?? img.height,
                codedBitDepth: info.codedBitDepth)
        )
    }

    static func formatName(_ f: HeifDecodeFormat) -> String {
        switch f {
        case .rgb8: return "rgb8"
        case .rgbNative: return "rgbNative"
        case .mono: return "mono"
        case .firstPlane: return "firstPlane"
        }
    }

    static func format(named s: String) -> HeifDecodeFormat? {
        ["rgb8": .rgb8, "rgbNative": .rgbNative, "mono": .mono, "firstPlane": .firstPlane][s]
    }
}

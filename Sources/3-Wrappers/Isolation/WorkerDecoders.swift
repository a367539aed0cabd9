import ColorScience
import Foundation
import HeifCodec
import RawDecoder

/// The decoders in worker processes (`WorkerPool`): each call is a request to a locked-down worker, supervised by
/// this process. Same results as `InProcessDecoders`; a crash, hang or exhaustion is a `WorkerFailure` instead of
/// the end of the run. `forFile()` gives a file's work one `--file-timeout` for all of its requests.
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

    /// LibRaw's decode of a RAW in memory (`LibRawDecoder.decodeInPlace(bytes:name:options:)`), through `pool`'s
    /// workers (by default the shared pool's) or, with none, in this process.
    /// - Throws: `RawDecodeError` (LibRaw's refusal, in process or from a worker), `WorkerFailure` in a worker.
    public func raw(bytes: [UInt8], name: String, options: RawDecodeOptions) throws -> (RawMetadata, RawFrame) {
        var m = WorkerMessage(kind: .request)
        m.op = .raw(
            workingSpace: options.workingSpace.rawValue, halfSize: options.halfSize,
            applyOrientation: options.applyOrientation)
        m.name = name
        let a = try pool.withWorker { w in
            m.cpuSeconds = pool.config.timeout.cpuSeconds(pixels: nil)
            return try w.run(m, bytes: bytes, pixels: nil, stage: "LibRaw open", budget: budget)
        }
        try Self.rethrow(a.message)
        guard let meta = a.message.raw, let f = a.message.frame, let px = a.pixels, f.width > 0, f.height > 0,
            let space = RawWorkingSpace(rawValue: f.workingSpace)
        else { throw IsolationError.protocolError("an incomplete RAW answer") }
        let base = UnsafePointer(px.base.assumingMemoryBound(to: UInt16.self))
        // LibRaw's image where the worker's LibRaw left it (the frame arena), or packed upright rows.
        if let layout = f.libRawImage {
            guard
                let frame = RawFrame(
                    libRawImage: base, count: px.count / 2, layout: layout, width: f.width, height: f.height,
                    workingSpace: space, owner: px)
            else { throw IsolationError.protocolError("a RAW frame outside its memory") }
            pool.countFrame(inPlace: true)
            return (meta, frame)
        }
        let (pixels, overflow) = f.width.multipliedReportingOverflow(by: f.height)
        guard !overflow, pixels <= px.count / 6 else {
            throw IsolationError.protocolError("a RAW frame outside its memory")
        }
        pool.countFrame(inPlace: false)
        return (meta, RawFrame(packedRGB: base, width: f.width, height: f.height, workingSpace: space, owner: px))
    }

    /// libheif's decode of the primary image (`HeifDecoder.decodePrimary(_:format:)`).
    /// - Parameter item: the primary's item id, to name the stage a worker died in.
    /// - Throws: `HeifError` (libheif refused it), `WorkerFailure`.
    ///   `pixels`: the image's pixel count from the container, for the default deadline.
    public func heifPrimary(_ bytes: [UInt8], format: HeifDecodeFormat, item: UInt32?, pixels: Int?) throws
        -> HeifDecodedImage
    {
        let a = try heif(.heifPrimary(format: Self.formatName(format), item: item), bytes, pixels: pixels)
        return try Self.image(a).0
    }

    /// libheif's reduced decode of the primary (`HeifDecoder.decodePrimaryReduced(_:minSide:)`).
    public func heifPrimaryReduced(_ bytes: [UInt8], minSide: Int, item: UInt32?, pixels: Int?) throws
        -> (image: HeifDecodedImage, size: HeifDecodedSize)
    {
        let a = try heif(.heifReduced(minSide: minSide, item: item), bytes, pixels: pixels)
        let (img, info) = try Self.image(a)
        return (
            img,
            HeifDecodedSize(
                width: info.fullWidth ?? img.width, height: info.fullHeight ?? img.height,
                codedBitDepth: info.codedBitDepth)
        )
    }

    /// The reduced decode of a grid primary tile by tile (`HeifDecoder.reducedGridOrWhole`): `bytes` are the file's
    /// `fileBytes`, then each tile's NAL units (`Rewrap.gridTiles` in Audit), `tileBytes` long each.
    public func heifGridReduced(
        _ bytes: [UInt8], fileBytes: Int, tileBytes: [Int], geometry: GridGeometry, minSide: Int, item: UInt32?,
        pixels: Int?
    ) throws -> (image: HeifDecodedImage, size: HeifDecodedSize) {
        let op = Operation.heifGridReduced(
            minSide: minSide, item: item, geometry: geometry, fileBytes: fileBytes, tileBytes: tileBytes)
        let (img, info) = try Self.image(try heif(op, bytes, pixels: pixels))
        return (
            img,
            HeifDecodedSize(
                width: info.fullWidth ?? img.width, height: info.fullHeight ?? img.height,
                codedBitDepth: info.codedBitDepth)
        )
    }

    /// libheif's size-only decode of the primary (`HeifDecoder.decodePrimarySize(_:)`).
    public func heifPrimarySize(_ bytes: [UInt8], item: UInt32?, pixels: Int?) throws -> HeifDecodedSize {
        let a = try heif(.heifSize(item: item), bytes, pixels: pixels)
        guard let info = a.message.heif else { throw IsolationError.protocolError("an incomplete HEIF answer") }
        return HeifDecodedSize(
            width: info.width, height: info.height, codedBitDepth: info.codedBitDepth,
            firstPlaneSpread: info.firstPlaneSpread)
    }

    /// Test only: asks a worker to do what its sandbox forbids ("socket", "write <path>"), to see it stopped.
    public func forbidden(_ what: String) throws {
        var m = WorkerMessage(kind: .request)
        m.op = .forbidden(what: what)
        let a = try pool.withWorker {
            try $0.run(m, bytes: [], pixels: nil, stage: "the forbidden call", budget: budget)
        }
        try Self.rethrow(a.message)
    }

    /// Sends `op` with `bytes` to a worker of the pool under this file's budget (and a request's CPU-time backstop),
    /// and waits for its answer; `stage` names what runs until the worker names it.
    func request(_ op: Operation, _ bytes: [UInt8], pixels: Int? = nil, stage: String) throws -> WorkerProcess.Answer {
        var m = WorkerMessage(kind: .request)
        m.op = op
        m.cpuSeconds = pool.config.timeout.cpuSeconds(pixels: nil)
        return try pool.withWorker { try $0.run(m, bytes: bytes, pixels: pixels, stage: stage, budget: budget) }
    }

    static func stageName(item: UInt32?) -> String { item.map { "libheif decode item \($0)" } ?? "libheif decode" }

    private func heif(_ op: Operation, _ bytes: [UInt8], pixels: Int?) throws -> WorkerProcess.Answer {
        let a = try request(op, bytes, pixels: pixels, stage: "libheif read")
        try Self.rethrow(a.message)
        return a
    }

    private static func image(_ a: WorkerProcess.Answer) throws -> (HeifDecodedImage, HeifInfo) {
        guard let info = a.message.heif, let px = a.pixels, px.count >= info.samples * 2 + (info.iccBytes ?? 0) else {
            throw IsolationError.protocolError("an incomplete HEIF answer")
        }
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

    /// Throws the decoder's own error a worker reported, as the error type the in-process call throws.
    static func rethrowFailure(_ m: WorkerMessage) throws { try rethrow(m) }

    private static func rethrow(_ m: WorkerMessage) throws {
        guard m.kind == .failed else { return }
        if let h = m.heifError {
            throw HeifError(operation: h.operation, code: h.code, subcode: h.subcode, message: h.message)
        }
        if let r = m.rawError { throw r }
        throw WorkerDecodeError(message: m.error ?? "the decoder failed")
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

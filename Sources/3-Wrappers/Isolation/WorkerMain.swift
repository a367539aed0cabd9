import AVIFCodec
import CIsolation
import ColorScience
import Exiv2Bridge
import Foundation
import HeifCodec
import JPEGCodec
import RawDecoder

/// The hidden worker mode: `readback __decode-worker PARENT-PID ADDRESS-SPACE`, started only by `WorkerPool`.
/// It binds itself to its parent, locks itself down (docs/security.md), then answers requests on descriptor 3 until
/// the parent closes it. It never opens a user's path: the bytes arrive in a sealed memfd.
public enum WorkerMain {
    /// The argument that selects worker mode (not in `--help`).
    public static let argument = "__decode-worker"
    /// Descriptors a worker may hold: its channel, a request's two memfds, what the libraries open read-only.
    static let maxFiles: Int32 = 16
    /// The exit status of a worker whose lockdown was refused (no seccomp in this kernel or container, say).
    static let lockdownFailed: Int32 = 70

    /// Runs the worker; returns its exit status (0 when the parent closed the channel).
    public static func run(_ arguments: [String]) -> Int32 {
        guard arguments.count >= 2, let parent = pid_t(arguments[0]), let cap = UInt64(arguments[1]) else { return 64 }
        guard rb_worker_bind_parent(parent) == 0 else { return 0 }
        var step: UnsafePointer<CChar>?
        let rc = rb_worker_lockdown(RB_WORKER_CHANNEL_FD, cap, maxFiles, &step)
        // No stderr any more: the parent sees the status. A worker that cannot lock itself down never decodes.
        if rc != 0 { return lockdownFailed }
        let channel = RB_WORKER_CHANNEL_FD
        var buffer = [UInt8](repeating: 0, count: WorkerWire.requestBytes)
        let kept = KeptGrant()
        while true {
            var fd: Int32 = -1
            let n = buffer.withUnsafeMutableBytes { rb_recv(channel, $0.baseAddress, $0.count, &fd) }
            if n <= 0 { return 0 }
            // Only a decode starts a request; anything else now is out of turn.
            guard case .success(.decode(let op, let cpuSeconds)) = WorkerWire.decode(WorkerRequest.self, buffer[0..<n])
            else { return 65 }
            _ = rb_worker_cpu_budget(UInt32(clamping: cpuSeconds))
            let input = fd >= 0 ? readInput(fd) : RequestInput(mapping: nil)
            if fd >= 0 { close(fd) }
            guard let input else { return 66 }
            let session = Session(channel: channel, kept: kept)
            let reply = session.answer(op, input: input)
            guard session.send(reply) else { return 0 }
            // Now, not whenever the session's storage goes: before the next request is read, whose bytes would
            // otherwise be mapped beside LibRaw's buffers (+40–90 MB of peak at 24 MP, measured).
            session.leftovers.objects.removeAll()
        }
    }

    /// The request's bytes: the parent's sealed memfd, mapped read-only.
    private static func readInput(_ fd: Int32) -> RequestInput? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        let count = Int(st.st_size)
        if count == 0 { return RequestInput(mapping: nil) }
        guard let m = try? SharedMapping.map(fd, count: count, writable: false) else { return nil }
        return RequestInput(mapping: m)
    }
}

/// A request's bytes. LibRaw and exiv2, which get a whole RAW, read them in place in the parent's sealed memfd,
/// which no process can change any more; the other decoders get a copy (an output HEIC, a preview: a few MB).
/// Not copying a 46 MB RAW saves its page faults before LibRaw starts (docs/bench.md).
private struct RequestInput {
    let mapping: SharedMapping?

    /// The bytes in place; valid while `mapping` lives.
    var memory: UnsafeRawBufferPointer {
        guard let mapping else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: mapping.base, count: mapping.count)
    }

    /// A copy of the bytes.
    var array: [UInt8] { Array(memory) }
}

/// The memory last granted that the parent told this worker to keep mapped: the next request's pixels go there when
/// the parent says it no longer reads it (docs/security.md, "Kept grants"), instead of into a new memfd whose every
/// page is faulted in again, here and in the parent.
private final class KeptGrant {
    var mapping: SharedMapping?
}

/// Shared memory the parent granted: `bytes` of `mapping`, which is the kept grant reused when `reused` (its bytes
/// are then what the last request left, not zeros).
private struct Grant {
    let mapping: SharedMapping
    let bytes: Int
    let reused: Bool
}

/// One request's conversation with the parent.
private struct Session {
    let channel: Int32
    let kept: KeptGrant
    /// What the answer leaves behind (LibRaw's buffers, a granted mapping): released by the request loop right after
    /// the reply is sent, so unmapping half a gigabyte at 50 MP is not on the parent's wait.
    let leftovers = Leftovers()

    final class Leftovers {
        var objects: [AnyObject] = []
    }

    func send(_ m: WorkerReply) -> Bool {
        guard let data = try? WorkerWire.encode(m) else { return false }
        return data.withUnsafeBytes { rb_send(channel, $0.baseAddress, $0.count, -1) } == 0
    }

    func stage(_ name: String, pixels: Int? = nil) {
        _ = send(.stage(name, pixels: pixels))
    }

    /// Asks the parent for `bytes` of shared memory and maps it.
    func grant(_ bytes: Int) -> SharedMapping? { granted(bytes)?.mapping }

    /// Asks the parent for `bytes` of shared memory: the kept grant, or a new memfd mapped here (and kept when the
    /// parent says so).
    func granted(_ bytes: Int) -> Grant? {
        guard send(.need(bytes: bytes, kept: kept.mapping?.count)) else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var fd: Int32 = -1
        let n = buffer.withUnsafeMutableBytes { rb_recv(channel, $0.baseAddress, $0.count, &fd) }
        defer { if fd >= 0 { close(fd) } }
        guard n > 0, case .success(let reply) = WorkerWire.decode(WorkerRequest.self, buffer[0..<n]) else { return nil }
        switch reply {
        case .reuse:
            guard fd < 0, let k = kept.mapping, k.count >= bytes else { return nil }
            return Grant(mapping: k, bytes: bytes, reused: true)
        case .grant(let keep):
            guard fd >= 0, let mapping = try? SharedMapping.map(fd, count: bytes, writable: true) else { return nil }
            if keep { kept.mapping = mapping }
            return Grant(mapping: mapping, bytes: bytes, reused: false)
        case .decode:
            return nil
        }
    }

    /// The reply to `op`: its answer, the library's error, or why there is neither.
    func answer(_ op: Operation, input: RequestInput) -> WorkerReply {
        do {
            return .done(try answering(op, input: input))
        } catch {
            if let library = DecodeFailure.Library(error) { return .failed(library) }
            return .gaveUp(reason: "\(error)")
        }
    }

    private func answering(_ op: Operation, input: RequestInput) throws -> WorkerAnswer {
        var bytes: [UInt8] { input.array }
        switch op {
        case .raw(let name, let space, let half, let orient):
            return try raw(
                input, name: name,
                options: RawDecodeOptions(
                    halfSize: half, workingSpace: RawWorkingSpace(rawValue: space) ?? .proPhoto,
                    applyOrientation: orient))
        case .heifPrimary, .heifReduced, .heifGridReduced, .heifSize:
            return try heif(op, bytes)
        case .exiv2(let label, let previews, let max):
            stage("exiv2 read")
            return try withExtendedLifetime(input) {
                try exiv2(Exiv2.read(memory: input.memory, label: label, previews: previews, maxPreviewBytes: max))
            }
        case .exiv2Blob(let xmp):
            stage(xmp ? "exiv2 XMP decode" : "exiv2 Exif decode")
            return try exiv2(xmp ? Exiv2.decodeXMP(bytes) : Exiv2.decodeExif(bytes))
        case .exiv2Build(let label, let w, let h, let software, let order, let sidecarLabel, let sidecarBytes):
            stage("exiv2 read")
            return try built(
                input, label: label, width: w, height: h, software: software, byteOrder: order,
                sidecarLabel: sidecarLabel, sidecarBytes: sidecarBytes)
        case .jpeg(let minSide):
            stage("libjpeg-turbo decode")
            let img = try JPEGDecoder.decode(bytes, minSide: minSide)
            guard let out = grant(img.samples.count) else {
                throw IsolationError.protocolError("no shared memory granted")
            }
            img.samples.withUnsafeBytes { out.base.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            return .jpeg(width: img.width, height: img.height)
        case .avif(let strict, let rgb):
            stage("libavif decode")
            return try avif(try AVIFDecoder.decode(bytes, strict: strict, rgb: rgb))
        case .jxlTIFF:
            stage("libjxl decode")
            return try jxlTIFF(input)
        case .forbidden(let what):
            stage("the forbidden call (\(what))")
            forbidden(what)
            return .notStopped
        }
    }

    /// libheif's decodes of the primary (and libde265's of a grid's tiles for the reduced one).
    private func heif(_ op: Operation, _ bytes: [UInt8]) throws -> WorkerAnswer {
        switch op {
        case .heifPrimary(let format, let item):
            stage(WorkerDecoders.stageName(item: item))
            let img = try HeifDecoder.decodePrimary(bytes, format: WorkerDecoders.format(named: format) ?? .rgb8)
            return try image(img, full: nil)
        case .heifReduced(let minSide, let item):
            stage(WorkerDecoders.stageName(item: item))
            let r = try HeifDecoder.decodePrimaryReduced(bytes, minSide: minSide)
            return try image(r.image, full: r.size)
        case .heifGridReduced(let minSide, let item, let geometry, let fileBytes, let tileBytes):
            stage(WorkerDecoders.stageName(item: item))
            let r = try HeifDecoder.reducedGridOrWhole(
                bytes, fileBytes: fileBytes, tileBytes: tileBytes, geometry: geometry, minSide: minSide)
            return try image(r.image, full: r.size)
        case .heifSize(let item):
            stage(WorkerDecoders.stageName(item: item))
            let s = try HeifDecoder.decodePrimarySize(bytes)
            return .heif(
                HeifInfo(
                    width: s.width, height: s.height, bitDepth: 0, channels: 0, codedBitDepth: s.codedBitDepth,
                    firstPlaneSpread: s.firstPlaneSpread, samples: 0))
        default:
            throw IsolationError.protocolError("not a libheif request")
        }
    }

    private func raw(_ input: RequestInput, name: String, options: RawDecodeOptions) throws -> WorkerAnswer {
        let d = LibRawDecoder()
        // LibRaw's decoded image is placed in shared memory the parent maps (the frame arena, docs/security.md):
        // asked for when the unpack starts, at LibRaw's allocation for the sensor's size, and faulted in on another
        // thread while LibRaw unpacks on one core. The parent then reads the image where LibRaw left it, as in process.
        let early = PrefaultedMapping()
        let arena = FrameArena(kept: kept)
        d.releasedAfterClose = arena
        leftovers.objects.append(d)
        var imageBytes = 0
        d.stage = { [unowned d] s, pixels in
            stage(s, pixels: pixels)
            if s == "LibRaw unpack", !options.halfSize, let size = d.sensorSize {
                let bytes = FrameArena.bytes(sensorWidth: size.width, sensorHeight: size.height)
                if bytes <= PrefaultedMapping.limit { early.start(granted(bytes)) }
            }
            // The next allocation of the image's size on this thread, LibRaw's calloc in raw2image_ex, gets it.
            if s == "LibRaw process", imageBytes > 0, let g = early.finish() { arena.arm(g, minBytes: imageBytes) }
        }
        let meta =
            if let mapping = input.mapping {
                try d.open(memory: input.memory, owner: mapping, name: name)
            } else {
                try d.open(bytes: [], name: name)
            }
        imageBytes = meta.width * meta.height * 8
        let frame = try withExtendedLifetime(arena) {
            defer { arena.disarm() }
            return try d.renderInPlace(options)
        }
        let (w, h) = (frame.width, frame.height)
        var info = FrameInfo(width: w, height: h, workingSpace: frame.workingSpace.rawValue)
        if let image = frame.libRawImage, arena.holds(image.base) {
            info.libRawImage = image.layout
            return .raw(meta, info)
        }
        // LibRaw put the image elsewhere (a rotated Fuji frame, a half-size decode): copied, packed and upright, into
        // the early grant unless an allocation of LibRaw's still holds it.
        let prepared = early.finish().flatMap { $0.bytes >= w * h * 6 && !arena.isHeld ? $0.mapping : nil }
        guard let out = prepared ?? grant(w * h * 6) else {
            throw IsolationError.protocolError("no shared memory granted")
        }
        // Two bands copied at once: LibRaw's OpenMP threads are idle by now, so the second core halves the transfer.
        let rows = UnsafeSendable(out.base.assumingMemoryBound(to: UInt16.self))
        let bands = h >= 64 ? 2 : 1
        Parallel.forEach(bands) { b in
            let rows = rows.value
            for y in (b * h / bands)..<((b + 1) * h / bands) {
                frame.copyRow(y, into: UnsafeMutableBufferPointer(start: rows + y * w * 3, count: w * 3))
            }
        }
        leftovers.objects.append(out)
        return .raw(meta, info)
    }

    /// exiv2's building of an output's Exif and XMP: the request's bytes are the source's, then the sidecar's; the
    /// answer is `BuiltMetadata` in its compact form (`Exiv2Wire`) in granted memory.
    private func built(
        _ input: RequestInput, label: String, width: Int, height: Int, software: String?, byteOrder: Int32,
        sidecarLabel: String?, sidecarBytes: Int?
    ) throws -> WorkerAnswer {
        let bytes = input.memory
        let split = bytes.count - (sidecarBytes ?? 0)
        guard split >= 0 else { throw IsolationError.protocolError("a sidecar larger than the request") }
        let built = withExtendedLifetime(input) {
            Exiv2.buildHEICMetadata(
                memory: UnsafeRawBufferPointer(rebasing: bytes[..<split]), label: label, pixelWidth: width,
                pixelHeight: height, software: software,
                sidecar: sidecarBytes.map { _ in
                    (UnsafeRawBufferPointer(rebasing: bytes[split...]), sidecarLabel ?? "sidecar")
                }, byteOrder: Exiv2.ByteOrder(rawValue: byteOrder) ?? .keepSource)
        }
        var answer = BuiltMetadata()
        switch built.exif {
        case .success(let blob): answer.exif = blob
        case .failure(let e): answer.exifError = e
        }
        switch built.xmp {
        case .success(let packet): answer.xmp = packet
        case .failure(let e): answer.xmpError = e
        }
        let wire = Exiv2Wire.encode(answer)
        guard let out = grant(wire.count) else { throw IsolationError.protocolError("no shared memory granted") }
        wire.withUnsafeBytes { out.base.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        return .built(bytes: wire.count)
    }

    /// libavif's image: its fields, and its samples in granted memory.
    private func avif(_ img: AVIFImage) throws -> WorkerAnswer {
        let answer = WorkerAnswer.avif(
            AVIFInfo(
                width: img.width, height: img.height, depth: img.depth, colourPrimaries: img.colourPrimaries,
                transferCharacteristics: img.transferCharacteristics, matrixCoefficients: img.matrixCoefficients,
                fullRange: img.fullRange, icc: img.icc, samples: img.samples.count))
        guard !img.samples.isEmpty else { return answer }
        guard let out = grant(img.samples.count) else { throw IsolationError.protocolError("no shared memory granted") }
        img.samples.withUnsafeBytes { out.base.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        return answer
    }

    /// A TIFF's JPEG XL IFDs stored uncompressed (`JXLDNG.uncompressed(_:every:)`), in granted memory; size 0 when
    /// none is JPEG XL.
    private func jxlTIFF(_ input: RequestInput) throws -> WorkerAnswer {
        guard let at = input.memory.baseAddress else { throw IsolationError.protocolError("an empty request") }
        let tiff = try withExtendedLifetime(input) {
            let base = UnsafeMutableRawPointer(mutating: at)
            return try JXLDNG.uncompressed(
                Data(bytesNoCopy: base, count: input.memory.count, deallocator: .none), every: true)
        }
        guard let tiff, !tiff.isEmpty else { return .tiff(bytes: 0) }
        guard let out = grant(tiff.count) else { throw IsolationError.protocolError("no shared memory granted") }
        tiff.withUnsafeBytes { out.base.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        return .tiff(bytes: tiff.count)
    }

    /// exiv2's document: its compact form (`Exiv2Wire`; previews without bytes), then the previews' bytes, in
    /// granted memory.
    private func exiv2(_ doc: Exiv2Document) throws -> WorkerAnswer {
        let wire = Exiv2Wire.encode(doc)
        let sizes = doc.previews.map(\.data.count)
        guard let out = grant(wire.count + sizes.reduce(0, +)) else {
            throw IsolationError.protocolError("no shared memory granted")
        }
        var at = 0
        for part in [wire] + doc.previews.map(\.data) {
            part.withUnsafeBytes {
                if let b = $0.baseAddress { (out.base + at).copyMemory(from: b, byteCount: $0.count) }
            }
            at += part.count
        }
        return .exiv2(Exiv2Info(documentBytes: wire.count, previewBytes: sizes))
    }

    private func image(_ img: HeifDecodedImage, full: HeifDecodedSize?) throws -> WorkerAnswer {
        // The samples, then the ICC profile (up to 16 MiB: too big for a message).
        let n = img.samples.count
        let icc = img.icc ?? []
        guard let out = grant(n * 2 + icc.count) else { throw IsolationError.protocolError("no shared memory granted") }
        img.samples.withUnsafeBytes { out.base.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        icc.withUnsafeBytes {
            if let b = $0.baseAddress { (out.base + n * 2).copyMemory(from: b, byteCount: $0.count) }
        }
        return .heif(
            HeifInfo(
                width: img.width, height: img.height, bitDepth: img.bitDepth, channels: img.channels,
                codedBitDepth: img.codedBitDepth,
                nclx: img.nclx.map {
                    NCLXInfo(
                        primaries: $0.colourPrimaries, transfer: $0.transferCharacteristics,
                        matrix: $0.matrixCoefficients, fullRange: $0.fullRange)
                }, iccBytes: img.icc?.count, fullWidth: full?.width, fullHeight: full?.height, samples: n))
    }

    /// Test only: what the sandbox must stop.
    private func forbidden(_ what: String) {
        if what == "socket" {
            _ = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        } else if what.hasPrefix("write ") {
            _ = open(String(what.dropFirst(6)), O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
    }
}

/// A granted mapping whose pages are faulted in on a thread of their own (`MADV_POPULATE_WRITE`, or a write to each
/// page where the kernel lacks it), while the requesting thread goes on. A reused kept grant, whose pages are in
/// already, is zeroed there instead: the arena is LibRaw's calloc.
// unchecked: its thread writes `grant` before signalling `done`; it is read after `wait()`.
private final class PrefaultedMapping: @unchecked Sendable {
    private var grant: Grant?
    private let done = DispatchSemaphore(value: 0)

    /// The largest mapping asked for early: a quarter of the worker's address-space cap (a frame that large could
    /// not be decoded beside LibRaw's own buffers, and the parent refuses a grant past the cap).
    static let limit: Int = {
        var r = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &r) == 0, r.rlim_cur != rlim_t.max else {
            return Int.max / 8
        }
        return Int(clamping: r.rlim_cur / 4)
    }()

    /// Starts faulting in (or zeroing) `g`'s pages (once; nothing when `g` is nil).
    func start(_ g: Grant?) {
        guard grant == nil, let g else { return }
        grant = g
        let t = Thread { [done] in
            let m = g.mapping
            if g.reused {
                m.base.initializeMemory(as: UInt8.self, repeating: 0, count: g.bytes)
            } else if madvise(m.base, g.bytes, 23) != 0 {
                // MADV_POPULATE_WRITE (Linux 5.14): allocate and map every page as a write would.
                for offset in stride(from: 0, to: g.bytes, by: 4096) {
                    m.base.storeBytes(of: 0, toByteOffset: offset, as: UInt8.self)
                }
            }
            done.signal()
        }
        t.stackSize = 1 << 16
        t.start()
    }

    /// The grant once its pages are in, or nil when none was started.
    func finish() -> Grant? {
        guard let grant else { return nil }
        done.wait()
        done.signal()
        return grant
    }
}

/// The frame arena's Swift side (frame_arena.c): arms a granted mapping for LibRaw's image allocation on the calling
/// thread, and disarms it when LibRaw has freed it. It is the decoder's `releasedAfterClose`, so it goes only after
/// `libraw_close`; the mapping goes after it.
private final class FrameArena {
    /// Room past LibRaw's own allocation of the image (`LibRawDecoder.imageAllocationBytes`).
    static let slack = 1 << 16

    /// The shared memory asked for a sensor's image: LibRaw's allocation for its size and `slack`. LibRaw 0.22
    /// allocates a pixel of margin round the image, 161 KB at 24 MP; a grant of 8 bytes a pixel missed it from about
    /// 4,000 px of width plus height, and the frame was then copied out (144 MB more in the worker at 24 MP).
    static func bytes(sensorWidth w: Int, sensorHeight h: Int) -> Int {
        LibRawDecoder.imageAllocationBytes(width: w, height: h) + slack
    }
    private var mapping: SharedMapping?
    private let kept: KeptGrant

    init(kept: KeptGrant) { self.kept = kept }

    /// Arms the grant's `bytes` (not the whole kept mapping it may be: the window of sizes stays the image's).
    func arm(_ g: Grant, minBytes: Int) {
        guard minBytes <= g.bytes, rb_arena_arm(g.mapping.base, g.bytes, minBytes) == 0 else { return }
        mapping = g.mapping
    }

    /// Whether an allocation of LibRaw's holds the arena now.
    var isHeld: Bool { mapping != nil && rb_arena_state() == RB_ARENA_HELD }

    /// Whether LibRaw holds the arena and `p` is its start.
    func holds(_ p: UnsafePointer<UInt16>) -> Bool {
        guard let mapping else { return false }
        return rb_arena_state() == RB_ARENA_HELD && UnsafeRawPointer(p) == UnsafeRawPointer(mapping.base)
    }

    /// Disarms an arena nothing took, so no later allocation can: called when LibRaw's processing is over.
    func disarm() {
        if mapping != nil, rb_arena_state() == RB_ARENA_ARMED { _ = rb_arena_reset() }
    }

    deinit {
        guard mapping != nil else { return }
        // Still held means LibRaw never freed its image: the mapping must then stay, or a later free would unmap
        // memory glibc does not know, and it is not kept for another request. libraw_close frees it, so this does
        // not happen.
        if rb_arena_reset() < 0, let mapping {
            _ = Unmanaged.passRetained(mapping)
            if kept.mapping === mapping { kept.mapping = nil }
        }
    }
}

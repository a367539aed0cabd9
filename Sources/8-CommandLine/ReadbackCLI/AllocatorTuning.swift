import Foundation

/// glibc's allocator settings for the `readback` process.
///
/// By default glibc serves every allocation above a moving threshold (128 KiB at start) with its own `mmap` and
/// returns it with `munmap` when freed. A conversion allocates and frees tens of such blocks per tile: x265's picture
/// and analysis buffers, libheif's images and the tiles' pixels. Each new block is page-faulted and zeroed by the
/// kernel again, and each `munmap` in a process with encoder threads makes the kernel flush the other cores' TLBs.
/// Serving blocks under 64 MiB from the heap, and keeping up to 256 MiB of freed heap, lets those buffers be reused.
/// Measured on the 24 MP chart: a little faster, for slightly more peak memory, since freed heap is kept for the next
/// file (docs/tiling.md). LibRaw's image still comes from `mmap`.
///
/// Swift's Glibc module does not import `mallopt`, so it is looked up with `dlsym`. A user's own `MALLOC_*_`
/// variables win: nothing is changed when either is set.
public enum AllocatorTuning {
    /// `M_MMAP_THRESHOLD` and `M_TRIM_THRESHOLD` from glibc's malloc.h.
    static let mmapThreshold: Int32 = -3
    static let trimThreshold: Int32 = -1

    /// Applies the settings once, at process start.
    /// - Returns: true when both were accepted; false when the environment sets them or `mallopt` is missing.
    @discardableResult
    public static func apply(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        if environment["MALLOC_MMAP_THRESHOLD_"] != nil || environment["MALLOC_TRIM_THRESHOLD_"] != nil { return false }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let sym = dlsym(nil, "mallopt") else { return false }
        let mallopt = unsafeBitCast(sym, to: Mallopt.self)
        return mallopt(mmapThreshold, 64 << 20) == 1 && mallopt(trimThreshold, 256 << 20) == 1
    }
}

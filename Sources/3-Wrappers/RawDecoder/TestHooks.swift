internal import CRaw
import Foundation

/// Fault-injection seams for the decoder-worker tests, compiled into debug builds only: the product never has them.
///
/// LibRaw is linked statically, so an LD_PRELOAD shim can no longer interpose `libraw_open_buffer` or
/// `libraw_dcraw_process` themselves (calls inside one executable are not resolved through the dynamic linker).
/// Instead, a debug build looks these two symbols up in the process (`dlsym`, where only a preloaded test shim
/// defines them) and calls them at the same points: before LibRaw reads a file's bytes and after it processed them
/// (Tests/BatchTests/DecoderWorkerTests.swift).
enum LibRawTestHooks {
    #if DEBUG
        typealias Open = @convention(c) (UnsafeRawPointer?, Int) -> Void
        typealias Processed = @convention(c) (UnsafeMutableRawPointer?) -> Void
        static let open: Open? = dlsym(nil, "readback_test_libraw_open").map { unsafeBitCast($0, to: Open.self) }
        static let processed: Processed? = dlsym(nil, "readback_test_libraw_processed").map {
            unsafeBitCast($0, to: Processed.self)
        }
    #endif

    /// Before `libraw_open_buffer` reads `size` bytes at `base`.
    static func willOpen(_ base: UnsafeRawPointer?, _ size: Int) {
        #if DEBUG
            open?(base, size)
        #endif
    }

    /// After `libraw_dcraw_process` succeeded on `handle`.
    static func didProcess(_ handle: UnsafeMutablePointer<libraw_data_t>) {
        #if DEBUG
            processed?(UnsafeMutableRawPointer(handle))
        #endif
    }
}

import Foundation
import ReadbackCLI
import Synchronization

AllocatorTuning.apply()
// Decoders run in workers that re-execute this binary (docs/security.md).
DecoderWorkers.executable.withLock { $0 = "/proc/self/exe" }
exit(Readback.run(arguments: Array(CommandLine.arguments.dropFirst()), console: .standard()).rawValue)

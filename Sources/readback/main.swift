import Foundation
import ReadbackCLI

AllocatorTuning.apply()
// Decoders run in workers that re-execute this binary (docs/security.md).
DecoderWorkers.executable = "/proc/self/exe"
exit(Readback.run(arguments: Array(CommandLine.arguments.dropFirst()), console: .standard()).rawValue)

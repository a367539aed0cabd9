import Foundation
import ReadbackCLI

AllocatorTuning.apply()
exit(Readback.run(arguments: Array(CommandLine.arguments.dropFirst()), console: .standard()).rawValue)

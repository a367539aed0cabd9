import ReadbackCLI
import Foundation

exit(Readback.run(arguments: Array(CommandLine.arguments.dropFirst()), console: .standard()).rawValue)

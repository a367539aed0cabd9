import Foundation
import ReadbackCLI

exit(Readback.run(arguments: Array(CommandLine.arguments.dropFirst()), console: .standard()).rawValue)

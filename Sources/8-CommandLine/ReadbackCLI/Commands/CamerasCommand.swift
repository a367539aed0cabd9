import Foundation
import RawDecoder
import ReportModel

/// `readback cameras [--json] [PATTERN]`: the makes and models the linked LibRaw decodes.
struct CamerasCommand: Subcommand {
    let name = "cameras"
    let summary = "list the camera makes and models whose RAW files Readback decodes (LibRaw's camera list)"
    let usage = "readback cameras [--json] [PATTERN]"
    let discussion = """
        Prints LibRaw's own list of supported cameras, one make and model a line, so that you can check a camera
        before converting its files. PATTERN keeps the lines that contain it, case-insensitively, with runs of
        spaces, hyphens and underscores matching each other ('eos r6' finds "Canon EOS R6" and "Canon EOS R6 Mark
        II"). A camera missing here may still write DNG, which LibRaw reads whatever the camera.

        Exit code 1 when PATTERN matches nothing, so a script can ask: readback cameras 'Z 8' >/dev/null.

        Example:
          readback cameras | wc -l
          readback cameras 'EOS R6'
          readback cameras --json sony | jq '.cameras | length'
        """
    let options: [OptionSpec] = [
        .flag("json", "Print {schemaVersion, libraw, count, cameras: [...]} instead of lines.")
    ]

    static let jsonSchemaVersion = 1

    func run(_ args: ParsedArguments, console: Console) throws -> ExitCode {
        guard args.positionals.count <= 1 else { throw UsageError("unexpected argument '\(args.positionals[1])'") }
        let pattern = args.positionals.first
        let cameras = Self.matching(pattern, in: LibRaw.cameras)
        if args.has("json") {
            console.write(Self.json(cameras))
        } else {
            for c in cameras { console.print(c) }
        }
        if let pattern, cameras.isEmpty {
            console.error("readback cameras: no camera matches '\(pattern)' in LibRaw \(LibRaw.shortVersion)")
            return .findings
        }
        return .clean
    }

    /// The names containing `pattern` (nil: all), compared folded: case, and runs of space, '-' and '_'.
    static func matching(_ pattern: String?, in names: [String]) -> [String] {
        guard let pattern else { return names }
        let p = CameraIdentity.fold(pattern)
        guard !p.isEmpty else { return names }
        return names.filter { CameraIdentity.fold($0).contains(p) }
    }

    static func json(_ cameras: [String]) -> String {
        struct List: Encodable {
            let schemaVersion: Int
            let libraw: String
            let count: Int
            let cameras: [String]
        }
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let list = List(
            schemaVersion: jsonSchemaVersion, libraw: LibRaw.shortVersion, count: cameras.count, cameras: cameras)
        guard let data = try? e.encode(list) else { return "{}\n" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}

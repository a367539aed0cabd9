/// `readback convert` (placeholder until its issue lands).
struct ConvertCommand: Subcommand {
    let name = "convert"
    let summary = "TODO"
    let usage = "readback convert"
    let discussion = "TODO"
    let options: [OptionSpec] = []
    func run(_ args: ParsedArguments, console: Console) throws -> ExitCode {
        throw NotBuiltYet(what: "readback convert")
    }
}

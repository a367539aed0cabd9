/// `readback diff` (placeholder until its issue lands).
struct DiffCommand: Subcommand {
    let name = "diff"
    let summary = "TODO"
    let usage = "readback diff"
    let discussion = "TODO"
    let options: [OptionSpec] = []
    func run(_ args: ParsedArguments, console: Console) throws -> ExitCode {
        throw NotBuiltYet(what: "readback diff")
    }
}

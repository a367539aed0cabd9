/// `readback history` (placeholder until its issue lands).
struct HistoryCommand: Subcommand {
    let name = "history"
    let summary = "TODO"
    let usage = "readback history"
    let discussion = "TODO"
    let options: [OptionSpec] = []
    func run(_ args: ParsedArguments, console: Console) throws -> ExitCode {
        throw NotBuiltYet(what: "readback history")
    }
}

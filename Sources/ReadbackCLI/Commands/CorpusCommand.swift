/// `readback corpus` (placeholder until its issue lands).
struct CorpusCommand: Subcommand {
    let name = "corpus"
    let summary = "TODO"
    let usage = "readback corpus"
    let discussion = "TODO"
    let options: [OptionSpec] = []
    func run(_ args: ParsedArguments, console: Console) throws -> ExitCode {
        throw NotBuiltYet(what: "readback corpus")
    }
}

/// `readback inspect` (placeholder until its issue lands).
struct InspectCommand: Subcommand {
    let name = "inspect"
    let summary = "TODO"
    let usage = "readback inspect"
    let discussion = "TODO"
    let options: [OptionSpec] = []
    func run(_ args: ParsedArguments, console: Console) throws -> ExitCode {
        throw NotBuiltYet(what: "readback inspect")
    }
}

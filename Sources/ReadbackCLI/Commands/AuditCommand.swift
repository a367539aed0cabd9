/// `readback audit` (placeholder until its issue lands).
struct AuditCommand: Subcommand {
    let name = "audit"
    let summary = "TODO"
    let usage = "readback audit"
    let discussion = "TODO"
    let options: [OptionSpec] = []
    func run(_ args: ParsedArguments, console: Console) throws -> ExitCode {
        throw NotBuiltYet(what: "readback audit")
    }
}

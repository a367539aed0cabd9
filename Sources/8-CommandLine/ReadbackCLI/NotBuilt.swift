/// Raised by a subcommand whose engine is not in this build yet; reported as an I/O-class error (exit 2).
struct NotBuiltYet: Error, CustomStringConvertible {
    let what: String
    var description: String { "\(what) is not part of this build yet" }
}

import Foundation

/// Runs a command-line tool of the system the way the suites call their oracles and peers.
public enum Tool {
    /// Runs `executable` (a path, or a name looked up through /usr/bin/env) with `args`, reading standard output and
    /// standard error at the same time so neither pipe fills up; returns the exit status and both streams.
    /// - Throws: the error of starting the process.
    public static func run(_ executable: String, _ args: [String]) throws -> (status: Int32, out: Data, err: Data) {
        let p = Process()
        if executable.hasPrefix("/") {
            p.executableURL = URL(fileURLWithPath: executable)
            p.arguments = args
        } else {
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = [executable] + args
        }
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        final class Box: @unchecked Sendable { var data = Data() }
        let errBox = Box()
        let t = Thread { errBox.data = err.fileHandleForReading.readDataToEndOfFile() }
        t.start()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        while !t.isFinished { usleep(10_000) }
        return (p.terminationStatus, o, errBox.data)
    }
}

/// The built `readback` (.build/debug), run as a user runs it: HOME and XDG_DATA_HOME in `home`, so its state and
/// trash stay in the test's folder; decoder workers start as they do for a user.
public enum BuiltReadback {
    public static var path: String { Repo.root.appendingPathComponent(".build/debug/readback").path }

    /// Runs it with `args`. - Returns: the exit status and the standard output and error as text.
    public static func run(_ args: [String], home: URL) throws -> (code: Int32, out: String, err: String) {
        let r = try Tool.run("/usr/bin/env", ["HOME=\(home.path)", "XDG_DATA_HOME=\(home.path)", path] + args)
        return (r.status, String(decoding: r.out, as: UTF8.self), String(decoding: r.err, as: UTF8.self))
    }
}

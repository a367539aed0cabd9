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

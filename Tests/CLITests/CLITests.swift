import Converter
import Foundation
import ReportModel
import TestSupport
import Testing

@testable import ReadbackCLI

/// Runs `readback` in-process and captures what it prints.
func runCLI(_ args: [String], env: [String: String] = [:], tty: Bool = false) -> (
    code: ExitCode, out: String, err: String
) {
    final class Box: @unchecked Sendable { var out = "", err = "" }
    let box = Box()
    let console = Console(isTTY: tty, environment: env, out: { box.out += $0 }, err: { box.err += $0 })
    let code = Readback.run(arguments: args, console: console)
    return (code, box.out, box.err)
}

@Test func topLevelHelpMatchesGolden() {
    let r = runCLI(["--help"])
    #expect(r.code == .clean)
    #expect(Golden.check(r.out, named: "help.txt") == nil)
}

@Test(arguments: Readback.commands.map(\.name))
func subcommandHelpMatchesGolden(_ name: String) {
    let r = runCLI([name, "--help"])
    #expect(r.code == .clean)
    #expect(r.err.isEmpty)
    #expect(Golden.check(r.out, named: "help-\(name).txt") == nil)
}

@Test func unknownCommandIsAUsageErrorWithExactWording() {
    let r = runCLI(["frobnicate"])
    #expect(r.code == .usageOrIO)
    #expect(r.out.isEmpty)
    #expect(
        r.err
            == "readback: unknown command 'frobnicate'\nUsage: readback <command> [options]. Run 'readback --help' for the commands.\n"
    )
}

@Test func unknownFlagNamesTheFlag() {
    let r = runCLI(["inspect", "--frobnicate", "x.heic"])
    #expect(r.code == .usageOrIO)
    #expect(Golden.check(r.err, named: "usage-unknown-flag.txt") == nil)
}

@Test func missingOptionValueIsNamed() throws {
    #expect(throws: UsageError("option '--out' needs a value (DIR)")) {
        try ParsedArguments.parse(["a.dng", "--out"], specs: [.value("out", "DIR", "where")])
    }
}

@Test func argumentGrammar() throws {
    let specs: [OptionSpec] = [.flag("json", "j"), .value("jobs", "N", "n"), .value("x", "X", "x", repeatable: true)]
    let p = try ParsedArguments.parse(["a", "--json", "--jobs=3", "--x", "1", "--x", "2", "--", "--b"], specs: specs)
    #expect(p.positionals == ["a", "--b"])
    #expect(p.has("json"))
    #expect(try p.int("jobs", in: 1...64) == 3)
    #expect(p.all("x") == ["1", "2"])
    #expect(throws: UsageError("option '--jobs' given more than once")) {
        try ParsedArguments.parse(["--jobs", "1", "--jobs", "2"], specs: specs)
    }
    #expect(throws: UsageError("option '--json' takes no value")) {
        try ParsedArguments.parse(["--json=yes"], specs: specs)
    }
    let bad = try ParsedArguments.parse(["--jobs", "0"], specs: specs)
    #expect(throws: UsageError("--jobs takes a whole number from 1 to 64, not '0'")) { try bad.int("jobs", in: 1...64) }
}

/// The versions must come from the libraries loaded at run time; pkg-config reports the installed
/// packages independently, so a hard-coded string would fail as soon as a package changes.
@Test func versionReadsTheLibraries() throws {
    let r = runCLI(["--version"])
    #expect(r.code == .clean)
    func pkg(_ name: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/pkg-config")
        p.arguments = ["--modversion", name]
        // LibRaw's pkg-config file is the one make deps wrote beside its static build.
        var env = ProcessInfo.processInfo.environment
        env["PKG_CONFIG_PATH"] = Repo.root.appendingPathComponent(".build/libraw/lib/pkgconfig").path
        p.environment = env
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        p.waitUntilExit()
        return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
    let lines = r.out.split(separator: "\n").map(String.init)
    func line(_ lib: String) -> String? {
        lines.first { $0.hasPrefix(lib + " ") }?.split(separator: " ").last.map(String.init)
    }
    #expect(line("libheif") == (try pkg("libheif")))
    #expect(line("exiv2") == (try pkg("exiv2")))
    #expect(line("SQLite") == (try pkg("sqlite3")))
    #expect(line("libavif") == (try pkg("libavif")))
    // LibRaw: "0.22.2-Release (1258 cameras)", the static build make deps made (its pkg-config file).
    let libraw = lines.first { $0.hasPrefix("LibRaw ") }?.split(separator: " ").dropFirst().map(String.init) ?? []
    #expect(libraw.first?.hasPrefix(try pkg("libraw_r")) == true, "\(libraw)")
    #expect(libraw.count == 3 && libraw[2] == "cameras)" && Int(libraw[1].dropFirst()) ?? 0 >= 1250, "\(libraw)")
    #expect(line("readback") == readbackVersion)
}

@Test func colourOnlyOnATerminalAndNeverWithNoColor() {
    let tty = Console(isTTY: true, environment: [:], out: { _ in }, err: { _ in })
    let noColor = Console(isTTY: true, environment: ["NO_COLOR": "1"], out: { _ in }, err: { _ in })
    let pipe = Console(isTTY: false, environment: [:], out: { _ in }, err: { _ in })
    #expect(tty.color("x", "31") == "\u{1B}[31mx\u{1B}[0m")
    #expect(noColor.color("x", "31") == "x")
    #expect(pipe.color("x", "31") == "x")
}

/// The allocator settings `readback` applies at start are accepted by glibc, and a user's own MALLOC_ variables win.
@Test func allocatorTuningIsAcceptedUnlessTheEnvironmentSetsIt() {
    #expect(AllocatorTuning.apply(environment: [:]))
    #expect(!AllocatorTuning.apply(environment: ["MALLOC_MMAP_THRESHOLD_": "131072"]))
    #expect(!AllocatorTuning.apply(environment: ["MALLOC_TRIM_THRESHOLD_": "131072"]))
}

import Foundation
import Testing

@testable import ReadbackCLI

/// The man page and the completion scripts are generated from `Readback.commands`; these tests read the generated
/// text back independently, so an option missing from (or left over in) either one fails here.

/// The option names (without `--`) of one command, plus `help`.
private func declaredOptions(_ name: String) -> Set<String> {
    let command = Readback.commands.first { $0.name == name }!
    return Set(command.options.map(\.name) + ["help"])
}

/// The lines of `text` from the line equal to `start` up to (not including) the next line starting with one of
/// `ends`.
private func slice(_ text: String, from start: String, until ends: [String]) -> [String] {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard let i = lines.firstIndex(of: start) else { return [] }
    let rest = lines[(i + 1)...]
    let end = rest.firstIndex { line in ends.contains { line.hasPrefix($0) } } ?? lines.endIndex
    return Array(lines[(i + 1)..<end])
}

/// Every `--name` in `lines`, read as roff writes it (`\-\-name`).
private func roffOptions(_ lines: [String]) -> Set<String> {
    var names = Set<String>()
    for line in lines {
        for match in line.matches(of: /\\fB\\-\\-((?:[a-z0-9]|\\-)+)\\fR/) {
            names.insert(String(match.1).replacingOccurrences(of: "\\-", with: "-"))
        }
    }
    return names
}

@Test(arguments: Readback.commands.map(\.name))
func manPageDocumentsEveryOptionOfTheCommand(_ name: String) {
    let page = ManPage.render()
    let section = slice(page, from: ".SS \"readback \(name)\"", until: [".SS", ".SH"])
    #expect(!section.isEmpty, "no .SS section for \(name)")
    guard let optionsAt = section.firstIndex(of: "\\fBOptions:\\fR") else {
        Issue.record("section \(name) has no Options:")
        return
    }
    let options = Array(section[optionsAt...])
    // The tag lines of the option list (the line after each .TP), and nothing else, name the options.
    let tags = options.indices.filter { $0 > 0 && options[$0 - 1] == ".TP" }.map { options[$0] }
    #expect(roffOptions(tags) == declaredOptions(name))
    let command = Readback.commands.first { $0.name == name }!
    for spec in command.options {
        #expect(options.contains(Roff.escape(spec.help)), "help of --\(spec.name) missing from the man page")
    }
    #expect(section.contains(Roff.escape(ManPage.sentence(command.summary))))
}

@Test func manPageIsPlainASCIIRoffWithOnlyKnownRequests() {
    let page = ManPage.render(version: "9.8.7")
    #expect(page.unicodeScalars.allSatisfy { $0.isASCII })
    #expect(page.contains(".TH READBACK 1 \"\" \"readback 9.8.7\" \"User Commands\"\n"))
    #expect(page.contains(".SH NAME\nreadback \\- convert camera RAW to HEIC"))
    let known: Set<String> = ["TH", "SH", "SS", "PP", "TP", "IP", "RS", "RE", "nf", "fi", "br", "nh", "ad", "\\\""]
    for line in page.split(separator: "\n") where line.hasPrefix(".") || line.hasPrefix("'") {
        let request = line.dropFirst().prefix { $0 != " " }
        #expect(known.contains(String(request)), "unexpected request line: \(line)")
    }
    // Every command is listed in DESCRIPTION and has a section.
    for command in Readback.commands {
        #expect(page.contains(".TP 10n\n\\fB\(command.name)\\fR\n\(Roff.escape(command.summary))\n"))
        #expect(page.contains(".SS \"readback \(command.name)\"\n"))
    }
}

@Test func roffEscapesHyphensBackslashesAndNonASCII() {
    #expect(Roff.escape("--out a\\b ≥ 0.99 × 2") == "\\-\\-out a\\eb \\[u2265] 0.99 \\[u00D7] 2")
    #expect(Roff.escape("420|444") == "420|\\:444")
    var r = Roff()
    r.text(".hidden request")
    r.text("'quoted")
    #expect(r.output == "\\&.hidden request\n\\&'quoted\n")
}

@Test func helpBlocksRecoverTermsBulletsAndExamples() {
    let text = """
        Prose on
        two lines:
          kept     the same
          changed  both shown,
                   on two lines
        After.

        generate  Writes
                  files.
          - first bullet,
            continued
          readback x --y
        Example: z
        """
    #expect(
        HelpBlock.parse(text) == [
            .prose("Prose on two lines:"),
            .term(tag: "kept", body: "the same", width: 9),
            .term(tag: "changed", body: "both shown, on two lines", width: 9),
            .prose("After."),
            .paragraphBreak,
            .term(tag: "generate", body: "Writes files.", width: 10),
            .bullet("first bullet, continued"),
            .verbatim(["readback x --y"]),
            .prose("Example: z"),
        ])
}

/// Runs the generated bash completion for the words typed so far (the last one is being completed).
private func bashComplete(_ words: [String]) throws -> [String] {
    let command =
        "eval \"$READBACK_COMPLETION\"; COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); _readback; "
        + "printf '%s\\n' \"${COMPREPLY[@]}\""
    let bash = Process()
    let output = Pipe()
    (bash.executableURL, bash.arguments, bash.standardOutput) = (
        URL(fileURLWithPath: "/bin/bash"), ["-c", command, "_"] + words, output
    )
    bash.environment = ["READBACK_COMPLETION": Completions.bash(), "PATH": "/usr/bin:/bin"]
    try bash.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    bash.waitUntilExit()
    #expect(bash.terminationStatus == 0)
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
}

@Test(arguments: Readback.commands.map(\.name))
func bashCompletesEveryOptionAndEveryChoice(_ name: String) throws {
    let offered = try bashComplete(["readback", name, "--"])
    #expect(Set(offered.map { String($0.dropFirst(2)) }) == declaredOptions(name))
    let command = Readback.commands.first { $0.name == name }!
    for spec in command.options {
        guard case .choice(let words) = Completions.valueKind(spec) else { continue }
        #expect(try bashComplete(["readback", name, "--" + spec.name, ""]) == words, "--\(spec.name)")
    }
}

@Test func bashCompletesCommandsAndActions() throws {
    #expect(try bashComplete(["readback", "co"]) == ["convert", "corpus", "codes"])
    #expect(try bashComplete(["readback", "corpus", "re"]) == ["remosaic"])
    #expect(try bashComplete(["readback", "help", "in"]) == ["inspect"])
    #expect(try bashComplete(["readback", "convert", "--speed", "very"]) == ["veryfast", "veryslow"])
}

@Test(arguments: Readback.commands.map(\.name))
func zshSpecifiesEveryOption(_ name: String) {
    let branch = slice(Completions.zsh(), from: "  \(name))", until: ["    ;;"])
    var names = Set<String>()
    for line in branch {
        for match in line.matches(of: /'\*?--([a-z0-9-]+)[=\[]/) { names.insert(String(match.1)) }
        if line.contains("{-h,--help}") { names.insert("help") }
    }
    #expect(names == declaredOptions(name))
}

@Test func zshQuotesDescriptionsAndChoices() {
    let spec = OptionSpec.value("fail-on", "SEVERITY", "a|b: it's [x]")
    #expect(Completions.zshSpec(spec) == "'--fail-on=[a|b\\: it'\\''s \\[x\\]]:SEVERITY:(a b)'")
    #expect(Completions.zshSpec(.flag("quiet", "q")) == "'--quiet[q]'")
    #expect(Completions.zshSpec(.value("out", "DIR", "d")) == "'--out=[d]:DIR:_files -/'")
}

@Test func hiddenGeneratorsAreReachableFromTheCommandLine() {
    let man = runCLI(["help", "--man"])
    #expect(man.code == .clean)
    #expect(man.out == ManPage.render())
    let bash = runCLI(["completions", "bash"])
    #expect(bash.code == .clean)
    #expect(bash.out == Completions.bash())
    #expect(runCLI(["completions", "zsh"]).out == Completions.zsh())
    let bad = runCLI(["completions", "fish"])
    #expect(bad.code == .usageOrIO)
    #expect(bad.err == "readback completions: give one shell: bash|zsh\n")
    // Hidden: the top-level help stays as it was.
    #expect(!runCLI(["--help"]).out.contains("completions"))
}

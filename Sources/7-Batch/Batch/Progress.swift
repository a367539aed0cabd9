import Fidelity
import Foundation

/// How a batch reports as it goes.
public enum ProgressStyle: Sendable, Equatable {
    /// A terminal: item lines plus one updating status line (done/total, files/s, ETA, failures).
    case tty
    /// Not a terminal: one plain line per item.
    case plain
    /// Errors and the final summary only.
    case quiet
    /// One JSON object per finished item (and per removal, and a summary), one per line.
    case json
}

/// Renders progress. Owned by the `Ledger` actor, so calls are serialised.
final class ProgressReporter {
    let style: ProgressStyle
    private let out: @Sendable (String) -> Void
    private let clock: () -> Double
    private var total = 0
    private var done = 0
    private var failed = 0
    private var started = 0.0
    private var lastDraw = -1.0
    private var barShown = false
    private var dirty = false
    /// Minimum seconds between two redraws of the status line (at most 5 a second).
    static let redrawInterval = 0.2

    init(style: ProgressStyle, out: @escaping @Sendable (String) -> Void, clock: @escaping () -> Double) {
        self.style = style
        self.out = out
        self.clock = clock
    }

    func begin(total: Int) {
        self.total = total
        started = clock()
        drawBarIfDue(force: true)
    }

    /// A line of text (not in quiet/json modes).
    func note(_ s: String) {
        switch style {
        case .quiet, .json: return
        case .plain: out(s + "\n")
        case .tty:
            clearBar()
            out(s + "\n")
            drawBarIfDue(force: false)
        }
    }

    /// Counts and prints one finished item.
    func item(_ o: ItemOutcome, countsTowardsTotal: Bool = true) {
        if countsTowardsTotal {
            done += 1
            if o.verdict == .failed || o.verdict == .kept { failed += 1 }
        }
        switch style {
        case .quiet: return
        case .json: out(Self.json(o) + "\n")
        case .plain: out(Self.line(o) + "\n")
        case .tty:
            clearBar()
            out(Self.line(o) + "\n")
            drawBarIfDue(force: false)
        }
    }

    /// Prints any JSON-encodable event (only in json mode).
    func jsonEvent<T: Encodable>(_ value: T) {
        guard style == .json else { return }
        out(Self.json(value) + "\n")
    }

    /// Redraws the status line if it is stale (called by a ticker).
    func tick() {
        // Redraw when something changed, and once a second anyway so the rate and ETA stay current.
        if dirty || (barShown && clock() - lastDraw >= 1) { drawBarIfDue(force: false) }
    }

    func end() {
        if style == .tty {
            clearBar()
        }
    }

    private func clearBar() {
        if barShown {
            out("\r\u{1B}[K")
            barShown = false
        }
    }

    private func drawBarIfDue(force: Bool) {
        guard style == .tty, total > 0 else { return }
        let now = clock()
        if !force && now - lastDraw < Self.redrawInterval {
            dirty = true
            return
        }
        lastDraw = now
        dirty = false
        out("\r\u{1B}[K" + Self.bar(done: done, total: total, failed: failed, elapsed: now - started))
        barShown = true
    }

    /// The status line: `[done/total] 1.2 files/s  ETA 0:42  2 failed`.
    static func bar(done: Int, total: Int, failed: Int, elapsed: Double) -> String {
        var s = "[\(done)/\(total)]"
        if done > 0 && elapsed > 0 {
            let rate = Double(done) / elapsed
            s += String(format: " %.2f files/s", rate)
            let remaining = Double(total - done) / rate
            s += "  ETA " + duration(remaining)
        }
        if failed > 0 { s += "  \(failed) failed or kept" }
        return s
    }

    static func duration(_ seconds: Double) -> String {
        let t = Int(seconds.rounded())
        return t >= 3600
            ? String(format: "%d:%02d:%02d", t / 3600, t / 60 % 60, t % 60)
            : String(format: "%d:%02d", t / 60, t % 60)
    }

    /// One human line per item: verdict, source → output, size ratio, time, and why when not clean.
    static func line(_ o: ItemOutcome) -> String {
        let verdict = o.verdict.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
        var s = verdict + (o.relativeSource ?? o.source)
        if let out = o.relativeOutput, o.verdict != .failed || o.outputBytes != nil { s += " → " + out }
        if let r = o.ratio { s += String(format: "  %.2f×", r) }
        if let t = o.seconds { s += String(format: "  %.1f s", t) }
        // A quality lowered for a noisy frame is said, with the noise that chose it.
        if let q = o.quality, let n = o.noiseSigma, n >= NoiseLevel.steps[0].minSigma {
            s += String(format: "  q%d for noise σ %.1f", q, n)
        }
        if !o.reasons.isEmpty { s += "  (" + o.reasons.joined(separator: "; ") + ")" }
        if let e = o.error { s += "  " + withoutName(e, of: o.source) }
        if let t = o.trashedTo { s += "  (trash: \(t))" }
        return s
    }

    /// A converter's error names its file first ("IMG_1.CR3: Canon EOS R6: …"); the line names it already.
    static func withoutName(_ error: String, of source: String) -> String {
        let name = (source as NSString).lastPathComponent + ": "
        return error.hasPrefix(name) ? String(error.dropFirst(name.count)) : error
    }

    static func json<T: Encodable>(_ value: T) -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let d = try? e.encode(value) else { return "{}" }
        return String(decoding: d, as: UTF8.self)
    }
}

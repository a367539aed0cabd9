import Findings
import Foundation
import ReportModel

/// Compares a run with a baseline report (`--baseline OLD.json`).
public enum Baseline {
    /// The regressions and improvements of `current` against `old`, file by file (matched by `name`).
    ///
    /// Regressions: a metadata field kept before and lost now (`field-lost`); a gain map complete before and not now
    /// (`gainmap-incomplete`); an error-severity code the file did not have before (`new-error`, also for files the
    /// baseline did not have). Improvements: `field-restored`, `gainmap-complete`, `error-fixed`.
    /// - Parameters:
    ///   - old: the baseline report.
    ///   - current: this run's report.
    ///   - path: the baseline path as given, recorded in the comparison.
    public static func compare(old: AuditReport, current: AuditReport, path: String) -> BaselineComparison {
        var regressions: [BaselineComparison.Change] = []
        var improvements: [BaselineComparison.Change] = []
        let before = Dictionary(old.files.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for f in current.files {
            let (r, i) = changes(before: before[f.name], now: f)
            regressions += r
            improvements += i
        }
        return BaselineComparison(path: path, regressions: regressions, improvements: improvements)
    }

    /// The regressions and improvements of one file against its baseline entry (nil: the baseline did not have it),
    /// by the rules of ``compare(old:current:path:)``; `readback merge` calls it file by file as they stream past.
    public static func changes(before b: FileResult?, now f: FileResult) -> (
        regressions: [BaselineComparison.Change], improvements: [BaselineComparison.Change]
    ) {
        var regressions: [BaselineComparison.Change] = []
        var improvements: [BaselineComparison.Change] = []
        let errorsNow = Set(f.findings.filter { $0.severity == .error }.map(\.code.rawValue))
        guard let b else {
            for c in errorsNow.sorted() { regressions.append(.init(file: f.name, kind: "new-error", subject: c)) }
            return (regressions, improvements)
        }
        let errorsBefore = Set(b.findings.filter { $0.severity == .error }.map(\.code.rawValue))
        for c in errorsNow.subtracting(errorsBefore) {
            regressions.append(.init(file: f.name, kind: "new-error", subject: c))
        }
        for c in errorsBefore.subtracting(errorsNow) {
            improvements.append(.init(file: f.name, kind: "error-fixed", subject: c))
        }
        let rowsBefore = Dictionary(b.metadata.map { ($0.field, $0.status) }, uniquingKeysWith: { a, _ in a })
        for r in f.metadata {
            guard let was = rowsBefore[r.field] else { continue }
            if was == .kept, r.status == .lost || r.status == .knownLoss {
                regressions.append(.init(file: f.name, kind: "field-lost", subject: r.field))
            }
            if was == .lost || was == .knownLoss, r.status == .kept {
                improvements.append(.init(file: f.name, kind: "field-restored", subject: r.field))
            }
        }
        let completeBefore = Set(b.gainMaps.filter(\.isComplete).map(\.kind))
        let completeNow = Set(f.gainMaps.filter(\.isComplete).map(\.kind))
        for k in completeBefore.subtracting(completeNow) {
            regressions.append(.init(file: f.name, kind: "gainmap-incomplete", subject: k))
        }
        for k in completeNow.subtracting(completeBefore) {
            improvements.append(.init(file: f.name, kind: "gainmap-complete", subject: k))
        }
        return (regressions, improvements)
    }
}

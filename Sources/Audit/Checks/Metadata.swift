import Findings
import Foundation
import Metadata
import MetadataIO
import ReportModel

extension Checks {
    /// The metadata diff against the source, field by field (Metadata's `Diff.compare`), judged by the audit policy:
    /// fields the policy ignores are left out; a lost field the policy lists as a known loss is `metadata.known-loss`,
    /// and one that survived is `metadata.known-loss-not-happened`; other losses and changes are `metadata.lost` /
    /// `metadata.changed` (error for critical and important fields, warning for the rest). Orientation findings of
    /// the diff (a transform plus Exif Orientation ≠ 1, an effective orientation that changed) are passed on.
    static func metadata(_ ctx: inout Context) {
        guard let src = ctx.job.source, let out = ctx.job.output else { return }
        let s: MetadataSet
        let o: MetadataSet
        do { s = try MetadataReader.read(src) } catch {
            ctx.add("metadata.unreadable", .warning, "the source's metadata cannot be read: \(error)")
            return
        }
        do { o = try MetadataReader.read(out) } catch {
            ctx.add("metadata.unreadable", .error, "the output's metadata cannot be read: \(error)")
            return
        }
        var mp = MetadataPolicy.standard
        // Known losses are the audit policy's business (docs/policy.md), not the diff's.
        mp.knownLosses = []
        mp.knownLossGroups = []
        let diff = Diff.compare(source: s, output: o, policy: mp)
        let policy = ctx.options.policy
        func text(_ v: MetadataValue?) -> String? {
            guard let v else { return nil }
            let t = v.description
            return t.count > 160 ? String(t.prefix(157)) + "…" : t
        }
        for e in diff.entries {
            let field = e.key.description
            guard policy.matters(field) else { continue }
            let known = policy.isKnownLoss(field)
            var status: DiffStatus
            switch e.diffClass {
            case .kept: status = .kept
            case .changed: status = .changed
            case .lost: status = known ? .knownLoss : .lost
            case .added: status = .added
            case .expectedChange: status = .expected
            case .knownLoss: status = .knownLoss
            }
            ctx.diffRows.append(
                DiffRow(field: field, status: status, source: text(e.source), output: text(e.output), note: e.note))
            let sev: Severity = e.criticality == .informational ? .warning : .error
            let ev = Evidence(expected: text(e.source), actual: text(e.output), field: field)
            switch status {
            case .lost:
                ctx.add("metadata.lost", sev, "\(field) is in the source but not in the output", ev)
            case .changed:
                ctx.add(
                    "metadata.changed", sev, "\(field) changed: \(text(e.source) ?? "") → \(text(e.output) ?? "")", ev)
            case .knownLoss:
                ctx.add("metadata.known-loss", .knownLoss, "\(field) was lost (a known loss under the policy)", ev)
            case .kept where known:
                ctx.add(
                    "metadata.known-loss-not-happened", .info,
                    "\(field) survived although the policy lists it as a known loss", ev)
            case .added where e.criticality != .informational:
                ctx.add("metadata.added", .info, "\(field) is in the output but not in the source", ev)
            default:
                break
            }
        }
        for f in diff.findings {
            switch f.metadataCode {
            case .doubleRotation:
                if !ctx.findings.contains(where: { $0.code == "orientation.double-rotation" }) {
                    ctx.add(
                        "orientation.double-rotation", .error, f.message,
                        Evidence(field: f.key?.description ?? "IFD0:Orientation"))
                }
            case .orientationChanged:
                ctx.add(
                    "orientation.changed", .error, f.message, Evidence(field: f.key?.description ?? "IFD0:Orientation"))
            default:
                break
            }
        }
    }
}

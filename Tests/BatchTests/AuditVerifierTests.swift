import Audit
import Findings
import ReportModel
import Testing

@testable import Batch

private func result(_ findings: [Finding]) -> FileResult {
    FileResult(
        name: "x.heic", source: "/s/x.dng", output: "/o/x.heic", sourceBytes: 100, outputBytes: 40, findings: findings)
}

@Test func auditVerdictsMapToRemovalDecisions() {
    #expect(
        AuditVerifier.verdict(for: result([])) == .clean(summary: "audit: 0 error, 0 warning, 0 known-loss, 0 info"))
    // Known losses and info do not veto removal.
    let known = result([
        Finding(code: .metadataKnownLoss, severity: .knownLoss, message: "MakerNote not carried"),
        Finding(code: .metadataAdded, severity: .info, message: "Software added"),
    ])
    guard case .clean = AuditVerifier.verdict(for: known) else {
        Issue.record("known losses must not veto removal")
        return
    }
    // A field or the gain map not carried: partial, with the reason.
    let lost = AuditVerifier.verdict(
        for: result([
            Finding(code: .gainmapMissing, severity: .error, message: "the source's gain map is not in the output")
        ]))
    #expect(
        lost
            == .kept(
                reasons: ["gainmap.missing: the source's gain map is not in the output"],
                summary: "audit: 1 error, 0 warning, 0 known-loss, 0 info"))
    let warnedField = AuditVerifier.verdict(
        for: result([
            Finding(code: .metadataChanged, severity: .warning, message: "GPS:GPSLatitude changed")
        ]))
    guard case .kept = warnedField else {
        Issue.record("a metadata warning must keep the original")
        return
    }
    // Unusable output: failed.
    let broken = AuditVerifier.verdict(
        for: result([
            Finding(code: .containerTruncated, severity: .error, message: "box ftyp runs past the end")
        ]))
    #expect(broken == .failed(reason: "container.truncated: box ftyp runs past the end"))
}

/// A colour cast or a blank frame keeps the original whatever removal asks for: a cast (even a warning) and turned
/// pixels are partial, a blank frame fails; an exposure warning or the lack of a reference render does not veto.
@Test func renderFindingsVetoRemoval() {
    func verdict(_ code: FindingCode, _ severity: Severity) -> VerificationResult {
        AuditVerifier.verdict(for: result([Finding(code: code, severity: severity, message: "m")]))
    }
    for (code, severity) in [
        (FindingCode.renderCast, Severity.warning), (.renderCast, .error), (.renderOrientation, .error),
        (.renderOrientation, .warning), (.renderExposure, .error),
    ] {
        guard case .kept(let reasons, _) = verdict(code, severity) else {
            Issue.record("\(code) \(severity) must keep the original")
            continue
        }
        #expect(reasons == ["\(code): m"])
    }
    #expect(verdict(.renderBlank, .error) == .failed(reason: "render.blank: m"))
    guard case .clean = verdict(.renderExposure, .warning), case .clean = verdict(.renderNoReference, .info)
    else {
        Issue.record("an exposure warning or a missing reference must not veto removal")
        return
    }
}

/// The catalogue's documented effect of each code on a conversion is what the verifier does with one finding of it
/// at its default severity, so the two cannot drift.
@Test(arguments: FindingCode.allCases)
func catalogueEffectIsTheVerifiersVerdict(_ code: FindingCode) {
    let verdict = AuditVerifier.verdict(for: result([Finding(code, message: "one finding")]))
    switch (code.effect, verdict) {
    case (.failsConversion, .failed), (.keepsOriginal, .kept), (.informationOnly, .clean): break
    default:
        Issue.record("\(code.rawValue) (\(code.severity.rawValue)): catalogue says \(code.effect), verifier \(verdict)")
    }
}

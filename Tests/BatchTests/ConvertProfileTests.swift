import Audit
import Findings
import ReportModel
import Testing

@testable import Batch

/// The grading AuditVerifier applied before the `convert` profile existed, by code prefix in Swift, kept here as the
/// reference the profile's `verdict` lines must reproduce.
private func formerVerdict(_ findings: [Finding]) -> String {
    func unusable(_ f: Finding) -> Bool {
        f.code.rawValue.hasPrefix("container.") || f.code.rawValue.hasPrefix("input.")
            || f.code.rawValue.hasPrefix("output.")
            || f.code == .decodePrimaryFailed || f.code == .renderBlank
    }
    let vetoWarning: Set<String> = ["render.cast", "render.blank", "render.orientation"]
    let prefixes = ["metadata.", "gainmap.", "orientation.", "file.", "sidecar."]
    let serious = findings.filter { f in
        f.severity == .error
            || (f.severity == .warning
                && (prefixes.contains { f.code.rawValue.hasPrefix($0) } || vetoWarning.contains(f.code.rawValue)))
    }
    if let bad = serious.first(where: { unusable($0) && $0.severity == .error }) { return "failed \(bad.code)" }
    if !serious.isEmpty { return "partial " + serious.map(\.code.rawValue).joined(separator: ",") }
    return "clean"
}

private func shape(_ v: VerificationResult) -> String {
    switch v {
    case .failed(let reason): "failed " + (reason.split(separator: ":").first.map(String.init) ?? "")
    case .kept(let reasons, _):
        "partial " + reasons.map { $0.split(separator: ":").first.map(String.init) ?? "" }.joined(separator: ",")
    case .clean: "clean"
    }
}

private func result(_ findings: [Finding]) -> FileResult {
    FileResult(
        name: "x.heic", source: "/s/x.dng", output: "/o/x.heic", sourceBytes: 100, outputBytes: 40, findings: findings)
}

/// One code of each family the converter's audit raises, and the codes the former grading named one by one.
private let codes: [FindingCode] = [
    .containerTruncated, .containerPitmMissing, .inputUnreadable, .outputMissing, .outputNotHeif, .decodePrimaryFailed,
    .decodeGainmapFailed, .decodePrimaryRewrapped, .renderBlank, .renderCast, .renderOrientation, .renderExposure,
    .renderNoReference, .renderSkipped, .metadataLost, .metadataChanged, .metadataRounded, .metadataKnownLoss,
    .metadataUnreadable, .gainmapMissing, .gainmapTmapColrMissing, .orientationChanged, .orientationInconsistent,
    .fileMtimeChanged, .fileXattrLost, .sidecarEditsNotApplied, .signallingNclxMissing, .signallingBitDepthMismatch,
    .sizeRatio,
]

/// The `convert` profile's `verdict` lines grade every (code family × severity) as the former
/// prefix rules in AuditVerifier did, one finding at a time and in pairs (which finding fails first, which reasons).
@Test func theConvertProfileReproducesTheFormerGrading() {
    let singles = codes.flatMap { c in Severity.allCases.map { Finding(code: c, severity: $0, message: "m") } }
    #expect(singles.count == codes.count * 4)
    for f in singles {
        #expect(
            shape(AuditVerifier.verdict(for: result([f]))) == formerVerdict(result([f]).findings),
            "\(f.code) \(f.severity)")
    }
    let serious = singles.filter { $0.severity == .error || $0.severity == .warning }
    for (i, a) in serious.enumerated() {
        for b in serious[(i + 1)...] {
            let v = AuditVerifier.verdict(for: result([a, b]), policy: .convert)
            #expect(
                shape(v) == formerVerdict(result([a, b]).findings), "\(a.code) \(a.severity) + \(b.code) \(b.severity)")
        }
    }
}

/// The grading is the policy's: a user policy on top of `convert` changes the verdict (a gain map lost no longer
/// keeps the original; an exposure warning does), and a policy with no `verdict` line passes everything.
@Test func aUserPolicyChangesTheConvertGrading() throws {
    let gainMap = result([Finding(code: .gainmapMissing, severity: .error, message: "gone")])
    let exposure = result([Finding(code: .renderExposure, severity: .warning, message: "dark")])
    guard case .kept = AuditVerifier.verdict(for: gainMap), case .clean = AuditVerifier.verdict(for: exposure)
    else {
        Issue.record("the convert profile keeps the original on a lost gain map, not on an exposure warning")
        return
    }
    let user = try Policy.parse(
        "verdict pass error gainmap.*\nverdict keep warning render.exposure\nverdict fail any size.ratio", name: "u",
        base: .convert)
    #expect(AuditVerifier.verdict(for: gainMap, policy: user) == .clean(summary: AuditVerifier.summary(gainMap)))
    #expect(
        AuditVerifier.verdict(for: exposure, policy: user)
            == .kept(reasons: ["render.exposure: dark"], summary: AuditVerifier.summary(exposure)))
    let ratio = result([Finding(code: .sizeRatio, severity: .info, message: "big")])
    #expect(AuditVerifier.verdict(for: ratio, policy: user) == .failed(reason: "size.ratio: big"))
    #expect(AuditVerifier.verdict(for: gainMap, policy: .builtIn) == .clean(summary: AuditVerifier.summary(gainMap)))
}

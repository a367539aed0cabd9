import Metadata
import TestSupport
import Testing

/// The class ↔ code mapping is total: every class either raises no finding or raises a code that stands for it, and
/// every metadata-diff code is either about one field's class (the same classes as the agreement check's own table,
/// ``DiffAgreement``) or about the pair's reader models.
@Test func everyClassAndEveryCodeHaveTheirCounterpart() {
    for c in DiffClass.allCases {
        if let code = c.findingCode {
            #expect(DiffClass.classes(for: code)?.contains(c) == true, "\(c)")
            #expect(DiffAgreement.classesByCode[code.rawValue]?.contains(c) == true, "\(c)")
        } else {
            #expect(DiffAgreement.silentClasses.contains(c), "\(c) raises no finding but is not silent")
        }
    }
    let codes =
        DiffClass.allCases.compactMap(\.findingCode) + [
            .metadataKnownLossNotHappened, .orientationChanged, .orientationInconsistent, .orientationDoubleRotation,
            .orientationUnverified,
        ]
    for code in codes {
        switch DiffClass.classes(for: code) {
        case let classes?:
            #expect(!classes.isEmpty, "\(code)")
            #expect(DiffAgreement.classesByCode[code.rawValue] == classes, "\(code)")
        case nil:
            // Judged by reader model: orientation.changed still names the Orientation row's class.
            let known = DiffAgreement.pairCodes.contains(code.rawValue) || code == .orientationChanged
            #expect(known, "\(code) is neither a field's class nor a pair's code")
        }
    }
}

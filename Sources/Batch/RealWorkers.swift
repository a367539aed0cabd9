import Audit
import Converter
import Foundation

/// The production converter and verifier behind `readback convert`: the `Converter` module and the `Audit` module.
public enum RealWorkers {
    /// The converter and verifier used by `readback convert`.
    /// - Throws: `BatchError.refused` while a module is not part of this build.
    public static func make() throws -> (any ItemConverter, any OutputVerifier) {
        throw BatchError.refused(
            path: "readback convert",
            reason: "the RAW converter (module Converter) is not integrated in this build yet")
    }
}

import ColorScience

// Transitional, for `Sources/Converter/Converter.swift` only: it still spells HeifCodec's former `Nclx` type
// (`Nclx(primaries:transfer:matrix:fullRange:)`, `.transfer`) and is being split into files by a parallel change.
// Delete this file once those files use `NCLX` from ColorScience (`.unspecified`, `.transferCharacteristics`).

/// The former name of `ColorScience.NCLX`.
public typealias Nclx = NCLX

extension NCLX {
    /// The former initialiser of `Nclx`.
    public init(primaries: UInt16, transfer: UInt16, matrix: UInt16, fullRange: Bool) {
        self.init(
            colourPrimaries: primaries, transferCharacteristics: transfer, matrixCoefficients: matrix,
            fullRange: fullRange)
    }

    /// The former name of `transferCharacteristics`.
    public var transfer: UInt16 { transferCharacteristics }
}

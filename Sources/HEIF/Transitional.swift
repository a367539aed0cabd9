import ColorScience

/// Transitional, for `Sources/Converter/Converter.swift` only: it names `NCLX` with `import HEIF` alone and is being
/// split into files by a parallel change. Delete this file once those files `import ColorScience`.
public typealias NCLX = ColorScience.NCLX

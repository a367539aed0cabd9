import Findings

/// What the fuzz target and the in-repo mutation test run on each input: parse, then walk every accessor.
public enum HEIFFuzz {
    /// Parses `bytes` with `limits` and calls every reader, the writer and the builder on the result.
    /// - Parameter deep: also build the standalone file, the inspect text and a rebuilt file (slower).
    /// - Returns: a description of the first broken invariant, or nil when all hold (serialize gives back the input,
    ///   counts within limits, payloads within `maxPayloadBytes`).
    public static func exercise(_ bytes: [UInt8], limits: Limits = .fuzzing, deep: Bool = true) -> String? {
        let f = HEIFFile(bytes: bytes, limits: limits)
        if f.serialize() != bytes { return "serialize() differs from the input" }
        if f.items.count > limits.maxItems { return "items over the limit" }
        if f.propertyBoxes.count > limits.maxProperties { return "properties over the limit" }
        if f.locations.count > limits.maxItems { return "locations over the limit" }
        if f.locations.values.reduce(0, { $0 + $1.extents.count }) > limits.maxExtents {
            return "extents over the limit"
        }
        if f.references.reduce(0, { $0 + $1.to.count }) > limits.maxReferences { return "references over the limit" }
        for it in f.items.prefix(deep ? 64 : 8) {
            if let p = f.payload(of: it.id), p.count > limits.maxPayloadBytes { return "payload over the limit" }
            _ = f.properties(of: it.id)
            _ = f.orientation(of: it.id)
            _ = f.grid(of: it.id)
            _ = f.toneMapInputs(of: it.id)
            _ = f.exifTIFF(of: it.id)
            _ = f.xmp(of: it.id)
            _ = f.auxiliaryImages(of: it.id)
            _ = f.bitDepth(of: it.id)
            _ = f.chromaFormat(of: it.id)
            _ = f.thumbnails(of: it.id)
            _ = f.metadataItems(describing: it.id)
        }
        guard deep else { return nil }
        if let p = f.primaryItemID, let s = f.standaloneFile(for: p) {
            let errors = HEIFFile(bytes: s, limits: limits).findings.filter {
                $0.severity == .error && $0.code != .containerIspeMissing
            }
            if !errors.isEmpty { return "standaloneFile has error findings: \(errors.map(\.code))" }
        }
        _ = Inspection(file: f).text(boxes: true)
        do {
            let total = f.items.reduce(0) { $0 + (f.payloadLength(of: $1.id) ?? 0) }
            if total <= limits.maxPayloadBytes {
                let again = HEIFFile(bytes: HEIFBuilder(file: f).build(), limits: limits)
                if again.items.count != f.items.count && f.items.count <= limits.maxItems {
                    return "rebuild lost items"
                }
            }
        }
        return nil
    }
}

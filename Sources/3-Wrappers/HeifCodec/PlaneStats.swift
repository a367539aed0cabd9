/// Statistics of a decoded plane read in place (no sample array is made).
enum PlaneStats {
    /// (p99 − p1) / full range of a plane of `depth` bits (8: one byte a sample, more: little-endian 16-bit), sampled
    /// on a grid of at most 128 × 128 pixels: near 0 for a flat picture. Nil for an empty plane.
    static func spread(_ plane: UnsafePointer<UInt8>, stride: Int, depth: Int, width: Int, height: Int) -> Double? {
        guard width > 0, height > 0, depth > 0, depth <= 16 else { return nil }
        let step = max(1, max(width, height) / 128)
        var v: [Int] = []
        for y in Swift.stride(from: 0, to: height, by: step) {
            let row = UnsafeRawPointer(plane + y * stride)
            for x in Swift.stride(from: 0, to: width, by: step) {
                v.append(
                    depth > 8
                        ? Int(UInt16(littleEndian: row.loadUnaligned(fromByteOffset: x * 2, as: UInt16.self)))
                        : Int(row.load(fromByteOffset: x, as: UInt8.self)))
            }
        }
        v.sort()
        return Double(v[min(v.count - 1, v.count * 99 / 100)] - v[v.count / 100]) / Double((1 << depth) - 1)
    }
}

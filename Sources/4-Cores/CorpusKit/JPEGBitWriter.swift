/// The entropy-coded segment of a JPEG as it is written: MSB-first bits with 0xFF bytes stuffed with 0x00, padded
/// with 1-bits (T.81 §F.1.2.3). Shared by the baseline (previews) and lossless (raw data) encoders.
struct JPEGBitWriter {
    var bytes: [UInt8] = []
    private var acc: UInt64 = 0
    private var count = 0

    /// Writes a Huffman code (code, length); a symbol without one is a bug of the caller's table.
    mutating func put(_ code: (UInt32, Int)?) {
        guard let code else { preconditionFailure("symbol without a Huffman code") }
        put(code.0, code.1)
    }

    /// Writes the low `len` bits of `v`.
    mutating func put(_ v: UInt32, _ len: Int) {
        guard len > 0 else { return }
        acc = (acc << UInt64(len)) | UInt64(v & ((1 << UInt32(len)) - 1))
        count += len
        while count >= 8 {
            let b = UInt8((acc >> UInt64(count - 8)) & 0xFF)
            bytes.append(b)
            if b == 0xFF { bytes.append(0) }
            count -= 8
        }
        acc &= (1 << UInt64(count)) - 1
    }

    /// Pads the last byte with 1-bits.
    mutating func flush() { if count > 0 { put((1 << UInt32(8 - count)) - 1, 8 - count) } }
}

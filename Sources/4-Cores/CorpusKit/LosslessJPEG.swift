/// Lossless JPEG encoder (ITU-T T.81 §14 "lossless process", SOF3, Huffman), as DNG uses it for Compression 7.
///
/// The image is coded as `components` interleaved components of `width` samples per line: a Bayer row of W
/// samples is W/2 × 2 components, a LinearRaw row is W × 3 (DNG 1.4 §"Lossless JPEG", the Adobe DNG SDK layout).
/// Predictor 1 (left neighbour); the first line uses the left neighbour and the first column of every line the
/// sample above, the very first sample 2^(P−1) (T.81 §H.1.2.1). One optimal Huffman table for all components.
public enum LosslessJPEG {
    /// Encodes samples.
    /// - Parameters:
    ///   - samples: `width · height · components` samples, line by line, components interleaved.
    ///   - width: samples per line per component.
    ///   - height: lines.
    ///   - components: 1…4.
    ///   - precision: bits per sample (2…16).
    /// - Returns: the JPEG stream (SOI … EOI).
    public static func encode(_ samples: [UInt16], width: Int, height: Int, components: Int, precision: Int) -> [UInt8]
    {
        let (cats, diffs, freq) = differences(
            samples, width: width, height: height, components: components, precision: precision)
        let lengths = huffmanLengths(freq)
        let (codes, bits, values) = canonicalCodes(lengths)
        var out: [UInt8] = [0xFF, 0xD8]
        appendHeaders(
            &out, bits: bits, values: values, width: width, height: height, components: components,
            precision: precision)
        appendEntropyCoded(&out, cats: cats, diffs: diffs, codes: codes, lengths: lengths)
        out += [0xFF, 0xD9]
        return out
    }

    /// The first pass: each sample's difference from its prediction, its category (SSSS), and how often each
    /// category occurs (for the Huffman table).
    static func differences(
        _ samples: [UInt16], width: Int, height: Int, components n: Int, precision: Int
    ) -> (categories: [UInt8], differences: [Int32], frequencies: [Int]) {
        var cats = [UInt8](repeating: 0, count: samples.count)
        var diffs = [Int32](repeating: 0, count: samples.count)
        var freq = [Int](repeating: 0, count: 17)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<n {
                    let i = (y * width + x) * n + c
                    let pred: Int
                    if x == 0 {
                        pred = y == 0 ? 1 << (precision - 1) : Int(samples[i - width * n])
                    } else {
                        pred = Int(samples[i - n])
                    }
                    // Differences are modulo 2^16 (T.81 §H.1.2.1), taken into −32767…32768.
                    var d = (Int(samples[i]) - pred) & 0xFFFF
                    if d > 32768 { d -= 65536 }
                    let a = abs(d)
                    let s = a == 0 ? 0 : (Int.bitWidth - a.leadingZeroBitCount)
                    cats[i] = UInt8(s)
                    diffs[i] = Int32(d)
                    freq[s] += 1
                }
            }
        }
        return (cats, diffs, freq)
    }

    /// Canonical codes (T.81 Annex C): symbols ordered by length, then value; with the DHT's counts per length and
    /// its symbol list.
    static func canonicalCodes(_ lengths: [Int]) -> (codes: [UInt32], bits: [UInt8], values: [UInt8]) {
        var codes = [UInt32](repeating: 0, count: 17)
        var bits = [UInt8](repeating: 0, count: 16)
        var values: [UInt8] = []
        var code: UInt32 = 0
        for len in 1...16 {
            for s in 0..<17 where lengths[s] == len {
                codes[s] = code
                code += 1
                bits[len - 1] += 1
                values.append(UInt8(s))
            }
            code <<= 1
        }
        return (codes, bits, values)
    }

    /// DHT, SOF3 and SOS: the table, the frame (`components` interleaved, no subsampling) and predictor 1.
    static func appendHeaders(
        _ out: inout [UInt8], bits: [UInt8], values: [UInt8], width: Int, height: Int, components n: Int,
        precision: Int
    ) {
        func segment(_ marker: UInt8, _ body: [UInt8]) {
            out += [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)]
            out += body
        }
        var dht: [UInt8] = [0x00]
        dht += bits
        dht += values
        segment(0xC4, dht)
        var sof: [UInt8] = [
            UInt8(precision), UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF),
            UInt8(n),
        ]
        for c in 0..<n { sof += [UInt8(c + 1), 0x11, 0] }
        segment(0xC3, sof)
        var sos: [UInt8] = [UInt8(n)]
        for c in 0..<n { sos += [UInt8(c + 1), 0x00] }
        sos += [1, 0, 0]  // predictor 1, Se 0, Ah/Al 0
        segment(0xDA, sos)
    }

    /// The entropy-coded data, MSB first, 0xFF stuffed with 0x00, padded with 1-bits.
    static func appendEntropyCoded(
        _ out: inout [UInt8], cats: [UInt8], diffs: [Int32], codes: [UInt32], lengths: [Int]
    ) {
        var w = JPEGBitWriter()
        swap(&w.bytes, &out)
        w.bytes.reserveCapacity(w.bytes.count + cats.count * 2)
        for i in 0..<cats.count {
            let s = Int(cats[i])
            w.put(codes[s], Int(lengths[s]))
            if s > 0 && s < 16 {
                let d = Int(diffs[i])
                w.put(UInt32(truncatingIfNeeded: d > 0 ? d : d - 1), s)
            }
        }
        w.flush()
        swap(&w.bytes, &out)
    }

    /// Huffman code lengths (≤ 16) for the 17 categories; unused categories get 0. A reserved dummy symbol keeps
    /// any code from being all 1-bits (T.81 §K.2); a flat 5-bit code is used if the tree would be deeper than 16.
    static func huffmanLengths(_ freq: [Int]) -> [Int] {
        var nodes: [(weight: Int, symbols: [Int])] = []
        for (s, f) in freq.enumerated() where f > 0 { nodes.append((f, [s])) }
        nodes.append((0, [17]))  // the reserved dummy
        var lengths = [Int](repeating: 0, count: 18)
        if nodes.count == 1 { lengths[nodes[0].symbols[0]] = 1 }
        while nodes.count > 1 {
            // Deterministic: stable sort by weight, then by smallest symbol.
            nodes.sort { ($0.weight, $0.symbols.min()!) < ($1.weight, $1.symbols.min()!) }
            let a = nodes.removeFirst()
            let b = nodes.removeFirst()
            for s in a.symbols + b.symbols { lengths[s] += 1 }
            nodes.append((a.weight + b.weight, a.symbols + b.symbols))
        }
        if lengths.max()! > 16 {
            lengths = (0..<18).map { $0 < 17 && freq[$0] > 0 ? 5 : 0 }
            return Array(lengths[0..<17])
        }
        // The dummy must hold the longest, last code (all 1-bits): give it the maximum length.
        let maxLen = lengths.max()!
        if lengths[17] < maxLen {
            // Swap with a real symbol of maximum length that sorts last.
            if let s = (0..<17).last(where: { lengths[$0] == maxLen }) {
                lengths[s] = lengths[17]
                lengths[17] = maxLen
            }
        }
        return Array(lengths[0..<17])
    }
}

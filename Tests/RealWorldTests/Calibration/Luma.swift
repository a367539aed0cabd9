import Foundation

/// A small greyscale picture for the truth's pixel test: libheif's `heif-convert` writes the picture as a HEIF reader
/// shows it (Y4M: its luma plane is read directly), reduced to at most 96 pixels on the long side. The comparison is
/// the truth's own (mean absolute difference of normalised 24×24 renders), not the audit's.
struct Luma {
    let width: Int
    let height: Int
    let values: [Double]

    /// The picture `url` as libheif shows it, nil when heif-convert cannot decode it.
    static func shown(_ url: URL, scratch: URL) -> Luma? {
        let y4m = scratch.appendingPathComponent("shown-\(UUID().uuidString).y4m")
        defer { try? FileManager.default.removeItem(at: y4m) }
        guard (try? Tool.run("heif-convert", ["--quiet", url.path, y4m.path])) != nil,
            let data = try? Data(contentsOf: y4m)
        else { return nil }
        return parseY4M([UInt8](data))
    }

    /// The luma plane of the first frame of a YUV4MPEG2 stream, reduced.
    static func parseY4M(_ b: [UInt8]) -> Luma? {
        guard let headerEnd = b.firstIndex(of: 0x0A) else { return nil }
        let header = String(decoding: b[..<headerEnd], as: UTF8.self).split(separator: " ")
        guard header.first == "YUV4MPEG2" else { return nil }
        func field(_ c: Character) -> Substring? { header.first { $0.first == c }?.dropFirst() }
        guard let w = field("W").flatMap({ Int($0) }), let h = field("H").flatMap({ Int($0) }), w > 0, h > 0,
            let frameEnd = b[(headerEnd + 1)...].firstIndex(of: 0x0A)
        else { return nil }
        let wide = field("C").map { $0.contains("p10") || $0.contains("p12") || $0.contains("p16") } ?? false
        let start = frameEnd + 1
        let bytesPer = wide ? 2 : 1
        guard b.count >= start + w * h * bytesPer else { return nil }
        let maxValue = wide ? 1023.0 : 255.0
        let f = max(1, (max(w, h) + 95) / 96)
        let rw = w / f
        let rh = h / f
        var out = [Double](repeating: 0, count: rw * rh)
        for y in 0..<(rh * f) {
            for x in 0..<(rw * f) {
                let i = start + (y * w + x) * bytesPer
                let v = wide ? Double(Int(b[i]) | Int(b[i + 1]) << 8) : Double(b[i])
                out[(y / f) * rw + x / f] += v / maxValue
            }
        }
        return Luma(width: rw, height: rh, values: out.map { $0 / Double(f * f) })
    }

    /// The picture with an Exif Orientation (1–8) applied.
    func transformed(_ o: Int) -> Luma {
        let swap = o >= 5
        let (w, h) = swap ? (height, width) : (width, height)
        var out = [Double](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let (sx, sy): (Int, Int)
                switch o {
                case 2: (sx, sy) = (width - 1 - x, y)
                case 3: (sx, sy) = (width - 1 - x, height - 1 - y)
                case 4: (sx, sy) = (x, height - 1 - y)
                case 5: (sx, sy) = (y, x)
                case 6: (sx, sy) = (y, height - 1 - x)
                case 7: (sx, sy) = (width - 1 - y, height - 1 - x)
                case 8: (sx, sy) = (width - 1 - y, x)
                default: (sx, sy) = (x, y)
                }
                out[y * w + x] = values[sy * width + sx]
            }
        }
        return Luma(width: w, height: h, values: out)
    }

    /// A 24×24 render, mean 0 and standard deviation 1 (left as is when flat).
    var render: [Double] {
        let n = 24
        var r = [Double](repeating: 0, count: n * n)
        for j in 0..<n {
            for i in 0..<n {
                r[j * n + i] = values[(j * height / n) * width + i * width / n]
            }
        }
        let mean = r.reduce(0, +) / Double(r.count)
        let sd = (r.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(r.count)).squareRoot()
        return r.map { sd > 1e-6 ? ($0 - mean) / sd : $0 - mean }
    }

    /// The transform T with `b` ≈ T(`a`), its score and its margin over the runner-up (transforms that would not
    /// give `b`'s aspect are not tried); nil when no transform fits.
    static func bestTransform(from a: Luma, to b: Luma) -> (best: Int, score: Double, margin: Double)? {
        let rb = b.render
        let square = abs(b.width - b.height) <= 1
        var scores: [(Int, Double)] = []
        for o in 1...8 {
            let t = a.transformed(o)
            if !square, abs(t.width - t.height) > 1, (t.width >= t.height) != (b.width >= b.height) { continue }
            let rt = t.render
            scores.append((o, zip(rt, rb).reduce(0) { $0 + abs($1.0 - $1.1) } / Double(rt.count)))
        }
        let sorted = scores.sorted { $0.1 < $1.1 }
        guard let first = sorted.first else { return nil }
        return (first.0, first.1, sorted.count > 1 ? sorted[1].1 - first.1 : 9.9)
    }
}

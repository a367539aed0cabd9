internal import CRaw

extension LibRawDecoder {
    /// Samples the unpacked raw buffer (Bayer `raw_image`, or `color4_image`/`color3_image` for linear DNGs) and
    /// rejects frames LibRaw "decoded" from absent data: constant, mostly zero, or over white without the spatial
    /// structure of clipped highlights (`WhiteLevelSamples`).
    /// - Returns: the share of sampled values at or above the white level (clipped highlights), and that share per
    ///   channel.
    func checkRawSamples(whiteLevel: Int) throws -> (Double, [String: Double]) {
        let d = handle.pointee
        let rw = Int(d.sizes.raw_width)
        let rh = Int(d.sizes.raw_height)
        let pitchSamples: Int
        let channels: Int
        let base: UnsafePointer<UInt16>
        if let raw = d.rawdata.raw_image {
            base = UnsafePointer(raw)
            channels = 1
            pitchSamples = d.sizes.raw_pitch > 0 ? Int(d.sizes.raw_pitch) / 2 : rw
        } else if let c4 = d.rawdata.color4_image {
            base = UnsafeRawPointer(c4).assumingMemoryBound(to: UInt16.self)
            channels = 4
            pitchSamples = d.sizes.raw_pitch > 0 ? Int(d.sizes.raw_pitch) / 2 : rw * 4
        } else if let c3 = d.rawdata.color3_image {
            base = UnsafeRawPointer(c3).assumingMemoryBound(to: UInt16.self)
            channels = 3
            pitchSamples = d.sizes.raw_pitch > 0 ? Int(d.sizes.raw_pitch) / 2 : rw * 3
        } else {
            throw RawDecodeError(file: fileName, reason: .noRawData)
        }
        let cfa = channels == 1 ? cfaLayout() : nil
        // A photosite's same-colour neighbour: the CFA's period on a mosaic, the next pixel otherwise.
        let step = cfa?.period ?? 1
        let names = cfa?.names ?? (channels == 1 ? ["Y"] : ["R", "G", "B"])
        // An evenly spread grid of up to 256×256 positions over the whole buffer.
        let steps = 256
        var n = 0
        var zeros = 0
        var white = WhiteLevelSamples(whiteLevel: whiteLevel, channels: names)
        var lo = Int.max
        var hi = Int.min
        let usedChannels = channels == 4 ? 3 : channels
        func sample(_ x: Int, _ y: Int, _ c: Int) -> Int? {
            x < rw && y < rh ? Int(base[y * pitchSamples + x * channels + c]) : nil
        }
        // Each grid position is moved within its mosaic cell so that the grid visits every CFA position alike: a frame
        // whose side is a multiple of the grid's would otherwise see one colour only (1536 px: every 6th column).
        func place(_ i: Int, _ side: Int) -> Int {
            let p = i * side / steps + side / (2 * steps)
            return min(side - 1, p - p % step + i % step)
        }
        for sy in 0..<steps {
            let y = place(sy, rh)
            for sx in 0..<steps {
                let x = place(sx, rw)
                for c in 0..<usedChannels {
                    let v = Int(base[y * pitchSamples + x * channels + c])
                    n += 1
                    if v == 0 { zeros += 1 }
                    let channel = cfa.map { $0.index[(y % $0.period) * $0.period + x % $0.period] } ?? c
                    white.add(v, channel: channel, right: sample(x + step, y, c), below: sample(x, y + step, c))
                    lo = min(lo, v)
                    hi = max(hi, v)
                }
            }
        }
        if n == 0 { throw RawDecodeError(file: fileName, reason: .noRawData) }
        if lo == hi { throw RawDecodeError(file: fileName, reason: .constantFrame(value: lo)) }
        let zf = Double(zeros) / Double(n)
        if zf > 0.95 { throw RawDecodeError(file: fileName, reason: .mostlyZero(fraction: zf)) }
        // Over white on more than 1 %: an overexposed frame converts, garbage does not.
        if white.overFraction > 0.01 && !white.looksClipped {
            throw RawDecodeError(
                file: fileName, reason: .samplesOverWhite(fraction: white.overFraction, whiteLevel: whiteLevel))
        }
        return (white.clippedFraction, white.clippedByChannel)
    }

    /// The mosaic's repeating cell over the raw buffer: its side (2 for Bayer, 6 for X-Trans, 16 for Leaf's
    /// pattern), each cell position's channel index, and the channels' names ("R", "G", "B", "G2": a colour that
    /// sits at two positions of a 2×2 cell is counted per position). Nil for a frame without a CFA.
    private func cfaLayout() -> (period: Int, index: [Int], names: [String])? {
        let filters = handle.pointee.idata.filters
        guard filters != 0 else { return nil }
        let period = filters == 9 ? 6 : filters == 1 ? 16 : 2
        let top = Int(handle.pointee.sizes.top_margin)
        let left = Int(handle.pointee.sizes.left_margin)
        let cdesc = withUnsafeBytes(of: handle.pointee.idata.cdesc) { Array($0.prefix(4)) }
        var names: [String] = []
        var index: [Int] = []
        for y in 0..<period {
            for x in 0..<period {
                // LibRaw's colour at a raw-buffer position: COLOR takes coordinates inside the margins.
                let c = Int(libraw_COLOR(handle, Int32(y - top % period + period), Int32(x - left % period + period)))
                var name = c >= 0 && c < 4 && cdesc[c] != 0 ? String(UnicodeScalar(cdesc[c])) : "C\(c)"
                if period == 2, names.contains(name) { name += "2" }
                if let i = names.firstIndex(of: name) {
                    index.append(i)
                } else {
                    names.append(name)
                    index.append(names.count - 1)
                }
            }
        }
        return (period, index, names)
    }
}

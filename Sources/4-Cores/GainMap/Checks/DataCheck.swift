import Findings
import HEIF

extension GainMapInspector {
    /// The data part: the coded pixels are in `iloc` and not empty (every tile of a grid), and, with a decoder,
    /// decode to something that is not constant.
    enum DataCheck {
        static func run(_ r: GainMapReport, _ f: HEIFFile, _ decode: GainMapDecoder?) -> Part {
            var part = Part()
            guard let g = r.gainMapItem(in: f) else {
                part.add(.gainmapDataMissing, "there is no gain-map item, so no gain-map data", nil)
                return part
            }
            let coded = g.type == "grid" ? f.derivedInputs(of: g.id) : [g.id]
            var missing: [UInt32] = []
            var total = 0
            for id in coded {
                if let n = f.payloadLength(of: id), n > 0 { total += n } else { missing.append(id) }
            }
            if g.type == "grid", f.grid(of: g.id) == nil { missing.append(g.id) }
            if !missing.isEmpty || coded.isEmpty {
                part.add(
                    .gainmapDataMissing,
                    coded.isEmpty
                        ? "grid \(g.id) has no tiles"
                        : "no or empty iloc data for item\(missing.count > 1 ? "s" : "") \(missing.map(String.init).joined(separator: ", "))",
                    f.item(missing.first ?? g.id)?.offset)
                return part
            }
            part.evidence.append("\(total) bytes in \(coded.count) extent set\(coded.count > 1 ? "s" : "")")
            if let decode {
                decodeCheck(&part, f, g.id, decode)
            } else {
                part.unverified = true
                part.evidence.append("present, not decoded")
            }
            return part
        }

        /// Decodes the map wrapped alone and looks at its samples' range.
        static func decodeCheck(_ data: inout Part, _ f: HEIFFile, _ id: UInt32, _ decode: GainMapDecoder) {
            guard let standalone = standalone(f, id) else {
                data.add(
                    .gainmapDataUndecodable, "item \(id) cannot be wrapped as a standalone image to decode",
                    f.item(id)?.offset)
                return
            }
            let plane: DecodedPlane?
            do { plane = try decode(standalone) } catch {
                data.add(.gainmapDataUndecodable, "item \(id) does not decode: \(error)", f.item(id)?.offset)
                return
            }
            guard let p = plane, !p.samples.isEmpty else {
                data.add(.gainmapDataUndecodable, "item \(id) decoded to nothing", f.item(id)?.offset)
                return
            }
            var lo = p.samples[0]
            var hi = lo
            for s in p.samples {
                lo = Swift.min(lo, s)
                hi = Swift.max(hi, s)
            }
            data.evidence.append("decoded \(p.width)x\(p.height) \(p.bitDepth)-bit, samples \(lo)…\(hi)")
            if lo == hi {
                data.add(
                    .gainmapDataConstant, "gain map \(id) is constant (every sample \(lo)): it carries no HDR",
                    f.item(id)?.offset)
            }
        }
    }
}

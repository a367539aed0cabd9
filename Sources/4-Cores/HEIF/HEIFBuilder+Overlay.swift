extension HEIFBuilder {
    /// The body of an `iovl` item (ISO/IEC 23008-12 §6.6.2.3): version 0 and 8-bit flags (bit 0: 32-bit sizes and offsets,
    /// set only when a value needs it), the canvas fill as 16-bit RGBA, the output size, then one signed
    /// (horizontal, vertical) offset per input in `dimg` order.
    public static func overlayPayload(
        fill: (UInt16, UInt16, UInt16, UInt16), width: UInt32, height: UInt32, offsets: [(x: Int32, y: Int32)]
    ) -> [UInt8] {
        let wide =
            width > 0xFFFF || height > 0xFFFF
            || offsets.contains { !(Int32(Int16.min)...Int32(Int16.max)).contains($0.x) }
            || offsets.contains { !(Int32(Int16.min)...Int32(Int16.max)).contains($0.y) }
        func field(_ v: UInt32) -> [UInt8] {
            wide
                ? [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
                : [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        }
        var out: [UInt8] = [0, wide ? 1 : 0]
        for c in [fill.0, fill.1, fill.2, fill.3] { out += [UInt8(c >> 8), UInt8(c & 0xFF)] }
        out += field(width) + field(height)
        for o in offsets { out += field(UInt32(bitPattern: o.x)) + field(UInt32(bitPattern: o.y)) }
        return out
    }

    /// Adds an overlay (`iovl`) derived image over `inputs` (drawn in that order at `offsets` on a `width` × `height`
    /// canvas filled with `fill`), its body in idat, `ispe` of the canvas first, then `properties`.
    /// - Returns: the overlay's id.
    @discardableResult
    public mutating func addOverlay(
        width: UInt32, height: UInt32, fill: (UInt16, UInt16, UInt16, UInt16), inputs: [UInt32],
        offsets: [(x: Int32, y: Int32)], properties: [(Property, essential: Bool)] = [], name: String = ""
    ) -> UInt32 {
        precondition(inputs.count == offsets.count, "an overlay needs one offset per input")
        return addDerivedImage(
            type: "iovl",
            payload: Self.overlayPayload(fill: fill, width: width, height: height, offsets: offsets), inputs: inputs,
            properties: [(.ispe(width: width, height: height), false)] + properties, storage: .idat, name: name)
    }
}

/// Writing a parsed file back.
extension HEIFFile {
    /// The file's bytes, written back box by box (ISO/IEC 14496-12 §4.2). Nothing in a parsed `HEIFFile` can
    /// change, so every box is written from its original bytes, and bytes outside boxes (trailing garbage) are
    /// kept too: for every file, `HEIFFile(bytes: b).serialize() == b`. To change a file, use `HEIFBuilder(file:)`.
    /// - Returns: the serialized file.
    public func serialize() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var pos = 0
        for b in boxes {
            if b.offset > pos { out.append(contentsOf: bytes[pos..<b.offset]) }
            writeBox(b, into: &out)
            pos = b.offset + b.size
        }
        if pos < bytes.count { out.append(contentsOf: bytes[pos...]) }
        return out
    }

    private func writeBox(_ b: Box, into out: inout [UInt8]) {
        guard !b.children.isEmpty else {
            out.append(contentsOf: bytes[b.range])
            return
        }
        // Header and preamble, then each child, then whatever follows the last child.
        var pos = b.children[0].offset
        out.append(contentsOf: bytes[b.offset..<pos])
        for c in b.children {
            if c.offset > pos { out.append(contentsOf: bytes[pos..<c.offset]) }
            writeBox(c, into: &out)
            pos = c.offset + c.size
        }
        if pos < b.offset + b.size { out.append(contentsOf: bytes[pos..<(b.offset + b.size)]) }
    }
}

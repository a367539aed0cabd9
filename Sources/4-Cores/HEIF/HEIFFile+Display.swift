extension HEIFFile {
    /// The size a HEIF reader shows an image at: `ispe`, then its `clap` crops and `irot` quarter turns applied in
    /// association order (ISO/IEC 23008-12 §6.5.9–6.5.12); nil without `ispe`.
    public func shownSize(of itemID: UInt32) -> (width: Int, height: Int)? {
        guard let s = imageSize(of: itemID) else { return nil }
        var w = Int(s.width)
        var h = Int(s.height)
        for p in properties(of: itemID) {
            switch p.property {
            case .irot(let q) where q & 1 == 1:
                swap(&w, &h)
            case .clap(let c) where c.widthD > 0 && c.heightD > 0 && c.widthN > 0 && c.heightN > 0:
                w = Int((Double(c.widthN) / Double(c.widthD)).rounded())
                h = Int((Double(c.heightN) / Double(c.heightD)).rounded())
            default: break
            }
        }
        return (w, h)
    }

    /// The coded raster's size before any turn, cropped by `clap`: ``shownSize(of:)`` turned back when the item's
    /// transforms make a quarter turn.
    public func codedShownSize(of itemID: UInt32) -> (width: Int, height: Int)? {
        guard let s = shownSize(of: itemID) else { return nil }
        let quarter = properties(of: itemID).reduce(0) {
            if case .irot(let q) = $1.property { return $0 + Int(q & 3) }
            return $0
        }
        return quarter % 2 == 1 ? (s.height, s.width) : s
    }
}

/// Image sequences (ISO/IEC 23008-12 §7): pictures stored as the samples of a `moov` track (handler `pict`, or
/// `vide`), which a still-image reader does not read. A file may hold a sequence and still images (a `meta`).
extension HEIFFile {
    /// The tracks of the top-level `moov`: each one's handler type and first sample entry (`hvc1`, `avc1`, …).
    public var tracks: [(handler: FourCC, sampleEntry: FourCC?)] {
        guard let moov = boxes.first(where: { $0.type == "moov" }) else { return [] }
        return moov.children.filter { $0.type == "trak" }.compactMap { trak in
            guard let mdia = trak.child("mdia"), let hdlr = mdia.child("hdlr") else { return nil }
            // hdlr: version and flags, pre_defined, handler_type (ISO/IEC 14496-12 §8.4.3).
            var r = ByteReader(bytes, from: hdlr.bodyRange.lowerBound, to: hdlr.bodyRange.upperBound)
            guard r.u32() != nil, r.u32() != nil, let handler = r.fourCC() else { return nil }
            var entry: FourCC?
            // stsd: version and flags, entry_count, then the first SampleEntry's size and type (§8.5.2).
            if let stsd = mdia.child("minf")?.child("stbl")?.child("stsd") {
                var s = ByteReader(bytes, from: stsd.bodyRange.lowerBound, to: stsd.bodyRange.upperBound)
                if s.u32() != nil, s.u32() != nil, s.u32() != nil { entry = s.fourCC() }
            }
            return (handler, entry)
        }
    }

    /// True when the file holds an image sequence: a track with a `pict` or `vide` handler.
    public var isImageSequence: Bool { tracks.contains { $0.handler == "pict" || $0.handler == "vide" } }

    /// How a person would name the sequence: "msf1 brand, pict track of hvc1 samples".
    public var sequenceDescription: String {
        let t = tracks.first { $0.handler == "pict" || $0.handler == "vide" }
        let sequenceBrands: [FourCC] = ["msf1", "hevc", "avis"]
        let brand = brands.map { b in sequenceBrands.first { b.contains($0) } ?? b.major }
        let parts: [String?] = [
            brand.map { "\($0) brand" },
            t.map { "\($0.handler) track of \($0.sampleEntry?.description ?? "unknown") samples" },
        ]
        return parts.compactMap { $0 }.joined(separator: ", ")
    }
}

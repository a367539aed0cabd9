/// The raw samples at and above the white level, on the decoder's sampling grid: tells an overexposed frame (clipped
/// highlights) from garbage by spatial structure alone.
///
/// How sensors write clipped data: a blown highlight is a region, many pixels wide, in which every photosite is at
/// or above the white level, and a photosite's same-colour neighbour (two columns or rows away on a Bayer sensor,
/// six on X-Trans, the next pixel in a LinearRaw frame) is then clipped too. Where the values land above WhiteLevel
/// is the camera's business: some cameras pin a channel at WhiteLevel, others let it run on to the ADC's maximum
/// with the read noise of each photosite (a real Nikon D5000 frame: two CFA channels exactly at 3840, the other two
/// spread over 3900–4095), so how spread those values are says nothing. Garbage (random bytes, a decoder's misread
/// of absent data) has no such structure: whether a sample is at or above white tells nothing of its neighbour's.
///
/// The measure is the phi coefficient (the correlation of two yes/no variables) of "at or above white" between each
/// sampled photosite and its same-colour neighbours to the right and below: near 1 for blown regions, near 0 for
/// samples scattered without structure, whatever the share of them.
struct WhiteLevelSamples {
    /// The least phi of a frame whose samples over white are clipped highlights. A blown region of a real frame
    /// gives 0.8 and more (only its border pairs disagree); random data gives 0 ± 0.01 on the 256×256 grid.
    static let minStructure = 0.3

    let whiteLevel: Int
    /// The names of the sampled channels, by index ("R", "G", "B", "G2").
    let channels: [String]
    private(set) var total = 0
    private(set) var atOrAboveWhite = 0
    private(set) var overWhite = 0
    /// Same-colour neighbour pairs by whether each is at or above white: [neither, first only, second only, both].
    private var pairs = [0, 0, 0, 0]
    private var perChannel: [(total: Int, clipped: Int)]

    init(whiteLevel: Int, channels: [String]) {
        self.whiteLevel = whiteLevel
        self.channels = channels
        perChannel = Array(repeating: (0, 0), count: channels.count)
    }

    /// Counts sample `v` of channel `channel`, with the samples of its same-colour neighbours to the right and below
    /// (nil past the edge).
    mutating func add(_ v: Int, channel: Int, right: Int?, below: Int?) {
        total += 1
        perChannel[channel].total += 1
        guard whiteLevel > 0 else { return }
        let clipped = v >= whiteLevel
        if let right { pairs[(clipped ? 1 : 0) + (right >= whiteLevel ? 2 : 0)] += 1 }
        if let below { pairs[(clipped ? 1 : 0) + (below >= whiteLevel ? 2 : 0)] += 1 }
        guard clipped else { return }
        atOrAboveWhite += 1
        perChannel[channel].clipped += 1
        if v > whiteLevel { overWhite += 1 }
    }

    /// Share of the samples over the white level.
    var overFraction: Double { total == 0 ? 0 : Double(overWhite) / Double(total) }
    /// Share of the samples at or above the white level: the clipped part of the frame.
    var clippedFraction: Double { total == 0 ? 0 : Double(atOrAboveWhite) / Double(total) }

    /// The clipped share of each channel, by name (a channel named twice, as a Bayer sensor's two greens, is
    /// counted once per position: "G" and "G2").
    var clippedByChannel: [String: Double] {
        var out: [String: Double] = [:]
        for (name, c) in zip(channels, perChannel) where c.total > 0 {
            out[name] = Double(c.clipped) / Double(c.total)
        }
        return out
    }

    /// The phi coefficient of "at or above white" over the same-colour neighbour pairs: 1 when clipping comes in
    /// regions, 0 when a sample's clipping says nothing of its neighbour's. 1 when every pair agrees.
    var structure: Double {
        let (n00, n10, n01, n11) = (Double(pairs[0]), Double(pairs[1]), Double(pairs[2]), Double(pairs[3]))
        let d = ((n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00)).squareRoot()
        guard d > 0 else { return n10 + n01 == 0 ? 1 : 0 }
        return (n11 * n00 - n10 * n01) / d
    }

    /// Samples over white that are clipped highlights: they come in regions.
    var looksClipped: Bool { structure >= Self.minStructure }
}

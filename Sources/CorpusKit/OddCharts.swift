/// The odd-sized charts: a display size with an odd width and height, upright and behind Orientation 6 (the sensor
/// stores it turned, 799 wide and 1201 high). A 4:2:0 image of odd size cannot be coded as one item without padding
/// and a `clap` of odd size, which MIAF §7.3.6.7 forbids, so these exercise how a converter codes such images (and
/// its thumbnail, which comes out odd for most sizes unless rounded).
extension Corpus {
    public static let oddSized: [CorpusRecipe] = [
        (1203, 803, 1, UInt64(800)), (1201, 799, 6, UInt64(801)),
    ].map { w, h, o, seed in
        // 16-bit shorts: an odd row of a packed 12/14-bit Bayer would end inside a byte, and lossless JPEG codes a
        // Bayer row as width/2 two-component samples, so neither takes an odd width.
        let spec = DNGSpec(layout: .bayer(.rggb), bitsPerSample: 16, noiseSigma: 0.5, seed: seed, orientation: o)
        return CorpusRecipe(
            file: "dng/chart-odd-\(w)x\(h)-rggb-16bit-o\(o).dng",
            recipe: "chart bayer RGGB 16-bit \(w)×\(h) orientation \(o)", seed: seed,
            exercises: "odd display size \(w)×\(h) (Exif Orientation \(o)): never an odd `clap` under 4:2:0, "
                + "`ispe` the decoded size, even thumbnail; highlight \(Int(highlightStops)) stops above white",
            expectedAudit: "clean; gain map required (headroom \(Int(highlightStops)) stops); upright chart",
            spec: spec, width: w, height: h, highlightStops: highlightStops, large: false)
    }
}

/// The odd-sized charts: a display size with an odd width and height, upright and behind Orientation 6 (the sensor
/// stores it turned, 221 wide and 331 high). A 4:2:0 image of odd size cannot be coded as one item without padding
/// and a `clap` of odd size, which MIAF §7.3.6.7 forbids, so these exercise how a converter codes such images: the
/// first is wider than a 512 px tile (a grid by default, one picture with `--tile-size 0`), the second fits in one;
/// both thumbnails come out odd (257×161, 165×110) unless rounded. Small, as the corpus stays under 3 MB (16-bit
/// samples, uncompressed).
extension Corpus {
    public static let oddSized: [CorpusRecipe] = [
        (515, 323, 1, UInt64(800)), (331, 221, 6, UInt64(801)),
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

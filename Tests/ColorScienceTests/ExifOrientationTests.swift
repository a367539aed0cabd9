import ColorScience
import Testing

/// The one orientation geometry: its pixel, size and point maps agree with its group (`then`, `inverse`) for all
/// eight values on a raster that is not square, so a wrong table row cannot hide behind a symmetric image.
@Test(arguments: 1...8)
func pixelMapsAgreeWithTheGroup(_ e: Int) {
    let o = ExifOrientation(exif: e)
    let (w, h) = (5, 3)
    let d = o.displaySize(storedWidth: w, storedHeight: h)
    #expect(o.swapsAxes == (d.width == h && d.height == w && e >= 5))
    #expect(o.storedSize(displayWidth: d.width, displayHeight: d.height) == (w, h))
    var seen = Set<Int>()
    for y in 0..<h {
        for x in 0..<w {
            let p = o.displayPosition(x: x, y: y, storedWidth: w, storedHeight: h)
            #expect(p.x >= 0 && p.x < d.width && p.y >= 0 && p.y < d.height)
            seen.insert(p.y * d.width + p.x)
            // storedPosition undoes displayPosition, and the inverse transform shows the display back as stored.
            #expect(o.storedPosition(dx: p.x, dy: p.y, storedWidth: w, storedHeight: h) == (x, y))
            let back = o.inverse.displayPosition(x: p.x, y: p.y, storedWidth: d.width, storedHeight: d.height)
            #expect(back == (x, y), "\(e): \(x),\(y) → \(p) → \(back)")
            // The normalised map of pixel centres lands on the same pixel.
            let (u, v) = o.displayPoint((Double(x) + 0.5) / Double(w), (Double(y) + 0.5) / Double(h))
            #expect(Int(u * Double(d.width)) == p.x && Int(v * Double(d.height)) == p.y, "\(e)")
        }
    }
    #expect(seen.count == w * h, "\(e) is not a bijection")
    #expect(o.then(o.inverse) == .identity)
}

@Test func composingFollowsTheTurns() {
    let six = ExifOrientation(exif: 6)
    #expect(six.then(six).exif == 3)
    #expect(six.then(six).then(six).exif == 8)
    #expect(ExifOrientation(exif: 2).then(six).exif == 7)
    #expect(ExifOrientation(exif: 0) == .identity && ExifOrientation(exif: 9) == .identity)
    #expect(ExifOrientation.all.map(\.exif) == Array(1...8))
}

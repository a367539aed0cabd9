import Foundation
import TestSupport
import Testing

/// `readback inspect FILE.jpg` on the generated JPEG gain maps of `Corpus/jpeg`: segments with offsets, the MPF index
/// and the gain map part by part; a broken gain map exits 1 with its code.
@Test func inspectJPEGShowsSegmentsMPFAndGainMap() throws {
    let path = Repo.root.appendingPathComponent("Corpus/jpeg/ultrahdr.jpg").path
    let r = runCLI(["inspect", path])
    #expect(r.code == .clean, "\(r.err)")
    for line in [
        "JPEG 64x48", "primary   @2  APP1 XMP", "APP2 MPF", "MPF index: 2 images", "2: undefined @1895, 954 bytes",
        "gain map: ultrahdr-xmp", "metadata: pass", "findings: none",
    ] {
        #expect(r.out.contains(line), "\(line) in:\n\(r.out)")
    }
}

@Test func inspectBrokenJPEGGainMapExitsOneWithItsCode() throws {
    let path = Repo.root.appendingPathComponent("Corpus/jpeg/mutations/mpf-offset-past-eof.jpg").path
    let r = runCLI(["inspect", "--json", path])
    #expect(r.code == .findings)
    let json = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
    #expect(json["format"] as? String == "image/jpeg")
    let findings = try #require(json["findings"] as? [[String: Any]])
    #expect(findings.contains { $0["code"] as? String == "gainmap.jpeg.mpf-offset-past-eof" }, "\(findings)")
    let mpf = try #require(json["mpf"] as? [[String: Any]])
    #expect(mpf.last?["jpegAtOffset"] as? Bool == false)
}

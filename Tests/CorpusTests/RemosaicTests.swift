import Foundation
import TestSupport
import Testing

@testable import CorpusKit

/// A re-mosaiced photo with a real camera's colour matrix decodes back to the photo: the chart, rendered to an
/// image, mosaiced as a Canon EOS 5D Mark IV, decoded by LibRaw into linear sRGB (`-o 1`), matches its truth
/// within 3 % + 0.01 per channel (the matrix is stored to 4 decimals; LibRaw inverts it).
@Test(arguments: ["canon-5d4", "sony-a7m3"])
func remosaicWithARealCameraMatrixRoundTrips(_ name: String) throws {
    let camera = try #require(CameraProfile.named.first { $0.name == name }?.profile)
    let chart = Chart(width: 192, height: 144, highlightStops: 2)
    let photo = RGBImage(rendering: chart)
    let dng = Remosaic.dng(photo: photo, camera: camera, seed: 9)
    let tmp = Repo.temporaryDirectory("remosaic")
    defer { try? FileManager.default.removeItem(at: tmp) }
    let url = tmp.appendingPathComponent("remosaic.dng")
    try Data(dng).write(to: url)
    let ppm = try runTool("/usr/bin/dcraw_emu", ["-w", "-4", "-o", "1", "-Z", "-", url.path])
    let img = try #require(readPPM16(ppm, scale: 16))
    #expect(img.width == 192 && img.height == 144)
    for p in chart.truth.patches {
        let got = img.mean(of: p.rect)
        for (g, t) in [(got.r, p.linear.r), (got.g, p.linear.g), (got.b, p.linear.b)] {
            #expect(abs(g - t) <= 0.03 * t + 0.01, "\(name) \(p.name): decoded \(got), truth \(p.linear)")
        }
    }
    let json = try runTool("/usr/bin/exiftool", ["-j", "-n", "-G1", "-a", url.path])
    let tags = try #require((try JSONSerialization.jsonObject(with: Data(json)) as? [[String: Any]])?.first)
    #expect(tags["IFD0:Model"] as? String == camera.model)
    #expect(tags["ExifIFD:LensModel"] as? String == camera.lensModel)
    #expect(ChartPose.detect(in: img)?.isUpright == true)
}

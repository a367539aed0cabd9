import ColorScience
import Foundation
import Testing

@testable import CorpusKit

/// What a tag must read as in `exiftool -j -n -G1 -a`.
enum Expected {
    case text(String)
    case number(Double)
    /// A space-separated list of numbers (exiftool's form for multi-value tags with -n).
    case numbers([Double])
    case list([String])

    func matches(_ v: Any?) -> Bool {
        switch self {
        case .text(let s):
            if let x = v as? String { return x == s }
            if let x = v as? NSNumber { return x.stringValue == s }
            return false
        case .number(let d):
            if let x = v as? NSNumber { return abs(x.doubleValue - d) <= 1e-6 * max(1, abs(d)) }
            if let x = v as? String, let y = Double(x) { return abs(y - d) <= 1e-6 * max(1, abs(d)) }
            return false
        case .numbers(let ds):
            let parts: [Double]
            if let x = v as? String {
                parts = x.split(separator: " ").compactMap { Double($0) }
            } else if let x = v as? NSNumber {
                parts = [x.doubleValue]
            } else {
                return false
            }
            return parts.count == ds.count && zip(parts, ds).allSatisfy { abs($0 - $1) <= 1e-4 * max(1, abs($1)) }
        case .list(let ss):
            if let a = v as? [Any] { return a.map { "\($0)" } == ss }
            if ss.count == 1, let x = v as? String { return x == ss[0] }
            return false
        }
    }
}

/// The tags a DNG of `r` must show, keyed "Group1:Tag", with the values the writer was given.
func expectedTags(_ r: CorpusRecipe) -> [String: Expected] {
    let s = r.spec
    let cam = s.camera
    let cap = s.capture
    let (sw, sh) = ExifOrientation(exif: s.orientation).storedSize(displayWidth: r.width, displayHeight: r.height)
    let samples = s.layout == .linear ? 3 : 1
    var e: [String: Expected] = [
        "IFD0:Make": .text(cam.make), "IFD0:Model": .text(cam.model),
        "IFD0:Orientation": .number(Double(s.orientation)),
        "IFD0:Software": .text("Readback CorpusKit 1"), "IFD0:ModifyDate": .text(cap.dateTimeOriginal),
        "IFD0:Artist": .text(cap.artist), "IFD0:Copyright": .text(cap.copyright),
        "IFD0:DNGVersion": .numbers([1, 4, 0, 0]), "IFD0:UniqueCameraModel": .text(cam.uniqueCameraModel),
        "IFD0:ColorMatrix1": .numbers(cam.colorMatrix1.map { ($0 * 10000).rounded() / 10000 }),
        "IFD0:AsShotNeutral": .numbers([0.55, 1, 0.72]), "IFD0:BaselineExposure": .number(s.baselineExposure),
        "IFD0:CalibrationIlluminant1": .number(21), "IFD0:SubfileType": .number(1),
        "SubIFD:SubfileType": .number(0), "SubIFD:ImageWidth": .number(Double(sw + s.maskedLeft)),
        "SubIFD:ImageHeight": .number(Double(sh + s.maskedTop)),
        "SubIFD:BitsPerSample": .numbers(Array(repeating: Double(s.bitsPerSample), count: samples)),
        "SubIFD:Compression": .number(s.losslessJPEG ? 7 : 1), "SubIFD:SamplesPerPixel": .number(Double(samples)),
        "SubIFD:BlackLevel": .numbers(Array(repeating: Double(s.blackLevel), count: samples)),
        "SubIFD:WhiteLevel": .numbers(Array(repeating: Double(s.whiteLevel), count: samples)),
        "SubIFD:ActiveArea": .numbers([
            Double(s.maskedTop), Double(s.maskedLeft), Double(sh + s.maskedTop), Double(sw + s.maskedLeft),
        ]),
        "SubIFD:DefaultCropSize": .numbers([Double(sw), Double(sh)]),
        "ExifIFD:ExposureTime": .number(Double(cap.exposureTime[0]) / Double(cap.exposureTime[1])),
        "ExifIFD:FNumber": .number(Double(cap.fNumber[0]) / Double(cap.fNumber[1])),
        "ExifIFD:ISO": .number(Double(cap.iso)), "ExifIFD:DateTimeOriginal": .text(cap.dateTimeOriginal),
        "ExifIFD:SubSecTimeOriginal": .text(cap.subSecTimeOriginal),
        "ExifIFD:OffsetTimeOriginal": .text(cap.offsetTimeOriginal),
        "ExifIFD:FocalLength": .number(Double(cap.focalLength[0]) / Double(cap.focalLength[1])),
        "ExifIFD:FocalLengthIn35mmFormat": .number(Double(cap.focalLength35mm)),
        "ExifIFD:ExposureCompensation": .number(Double(cap.exposureBias[0]) / Double(cap.exposureBias[1])),
        "ExifIFD:LensMake": .text(cam.lensMake), "ExifIFD:LensModel": .text(cam.lensModel),
        "ExifIFD:SerialNumber": .text(cam.bodySerial),
    ]
    switch s.layout {
    case .bayer(let p):
        e["SubIFD:PhotometricInterpretation"] = .number(32803)
        e["SubIFD:CFARepeatPatternDim"] = .numbers([2, 2])
        e["SubIFD:CFAPattern2"] = .numbers(p.codes.map(Double.init))
        e["SubIFD:CFAPlaneColor"] = .numbers([0, 1, 2])
    case .linear:
        e["SubIFD:PhotometricInterpretation"] = .number(34892)
    }
    if let g = cap.gps {
        e["GPS:GPSLatitude"] = .number(abs(g.latitude))
        e["GPS:GPSLatitudeRef"] = .text(g.latitude >= 0 ? "N" : "S")
        e["GPS:GPSLongitude"] = .number(abs(g.longitude))
        e["GPS:GPSLongitudeRef"] = .text(g.longitude >= 0 ? "E" : "W")
        e["GPS:GPSAltitude"] = .number(abs(g.altitude))
        e["GPS:GPSAltitudeRef"] = .number(g.altitude >= 0 ? 0 : 1)
        e["GPS:GPSTimeStamp"] = .text(g.timeStamp.map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: ":"))
        e["GPS:GPSDateStamp"] = .text(g.dateStamp)
    }
    if let x = cap.xmp {
        e["XMP-xmp:Rating"] = .number(Double(x.rating))
        e["XMP-xmp:Label"] = .text(x.label)
        e["XMP-dc:Subject"] = .list(x.keywords)
        e["XMP-dc:Description"] = .text(x.caption)
        e["IFD0:ImageDescription"] = .text(x.caption)
    }
    if cap.makerNote { e["IFD0:MakerNoteSafety"] = .number(1) }
    return e
}

/// exiftool (the oracle) shows each written tag with the written value, and the MakerNote blob byte for byte.
@Test(arguments: Corpus.tiny.map(\.file))
func exiftoolShowsEveryWrittenTag(_ file: String) throws {
    let recipe = try #require(Corpus.tiny.first { $0.file == file })
    let path = corpusRoot.appendingPathComponent(file).path
    let json = try runTool("/usr/bin/exiftool", ["-j", "-n", "-G1", "-a", path])
    let arr = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [[String: Any]])
    let tags = try #require(arr.first)
    #expect(tags["File:FileType"] as? String == "DNG")
    for (key, want) in expectedTags(recipe).sorted(by: { $0.key < $1.key }) {
        #expect(
            want.matches(tags[key]), "\(file) \(key): exiftool reads \(String(describing: tags[key])), wrote \(want)")
    }
    // Absent what was not written.
    if recipe.spec.capture.gps == nil { #expect(tags["GPS:GPSLatitude"] == nil) }
    if recipe.spec.capture.xmp == nil { #expect(tags["XMP-xmp:Rating"] == nil) }
    let mn = try runTool("/usr/bin/exiftool", ["-b", "-MakerNotes", path])
    if recipe.spec.capture.makerNote {
        #expect(mn == DNGWriter.makerNote(seed: recipe.seed))
        #expect(mn.starts(with: DNGWriter.makerNoteHeader))
    } else {
        #expect(mn.isEmpty)
    }
}

import RawDecoder
import Testing

/// A file LibRaw refuses is named by the camera its Exif names, matched against LibRaw's own list.
private let list = [
    "Canon EOS 350D / Digital Rebel XT / Kiss Digital N", "Canon EOS R", "Canon EOS R6", "Canon EOS R6 Mark II",
    "Nikon D70s", "Nikon Z f (HE/HE* formats are not supported yet)", "Pentax K-3 Mark III", "Sony ZV-E10",
    "Leica M10", "PhaseOne IQ4 150MP", "Hasselblad X2D 100C", "Konica KD-400Z", "Minolta DiMAGE A2",
]

@Test(arguments: [
    ("Canon", "Canon EOS R6", "Canon EOS R6", true),
    ("Canon", "Canon EOS R", "Canon EOS R", true),
    ("Canon", "Canon EOS 350D DIGITAL", "Canon EOS 350D DIGITAL", true),
    ("Canon", "Canon Kiss Digital N", "Canon Kiss Digital N", true),
    ("NIKON CORPORATION", "NIKON D70s", "Nikon D70s", true),
    ("NIKON CORPORATION", "NIKON Z f", "Nikon Z f", true),
    ("RICOH IMAGING COMPANY, LTD.", "PENTAX K-3 Mark III", "Pentax K-3 Mark III", true),
    ("SONY", "ZV-E10", "Sony ZV-E10", true),
    ("Leica Camera AG", "LEICA M10", "Leica M10", true),
    ("Phase One", "IQ4 150MP", "PhaseOne IQ4 150MP", true),
    ("Hasselblad", "X2D II 100C", "Hasselblad X2D II 100C", false),
    ("Canon", "Canon EOS R7", "Canon EOS R7", false),
    ("Acme Optics", "Acme Z1", "Acme Optics Z1", false),
    // A make that holds two brands: the one LibRaw lists the model under.
    ("Konica Minolta Camera, Inc.", "DiMAGE A2", "Minolta DiMAGE A2", true),
    ("Konica Minolta Camera, Inc.", "KD-400Z", "Konica KD-400Z", true),
])
func aCameraIsNamedAndLookedUp(make: String, model: String, name: String, listed: Bool) throws {
    let c = try #require(CameraIdentity(make: make, model: model, cameras: list))
    #expect(c.name == name)
    #expect(c.isListed(in: list) == listed, "\(c.name)")
}

@Test func aFileThatNamesNoCameraHasNoIdentity() {
    #expect(CameraIdentity(make: "  ", model: nil, cameras: list) == nil)
}

/// The reason never says "not RAW" for a file that names a camera: a listed camera's file holds no raw data, an
/// unlisted one is named as missing from the list, and a file naming nothing says so.
@Test func aRefusalNamesTheCameraAndTheReason() throws {
    let unsupported = RawDecodeError(
        file: "a.CR3",
        reason: .libraw(function: "libraw_open_buffer", code: -2, message: "Unsupported file format or not RAW file"))
    let r6 = CameraIdentity(make: "Canon", model: "Canon EOS R6", cameras: list)
    let x2d = CameraIdentity(make: "Hasselblad", model: "X2D II 100C", cameras: list)
    #expect(
        unsupported.reason(camera: r6, cameras: list) == "Canon EOS R6: the file holds no raw image data (truncated?)")
    let missing = unsupported.reason(camera: x2d, cameras: list)
    #expect(missing.hasPrefix("Hasselblad X2D II 100C: not in the camera list of LibRaw 0.2"), "\(missing)")
    #expect(missing.hasSuffix("(readback cameras)"), "\(missing)")
    let nameless = unsupported.reason(camera: nil, cameras: list)
    #expect(nameless.contains("recognises no RAW format") && !nameless.contains("not RAW"), "\(nameless)")
    let stub = RawDecodeError(file: "b.cr3", reason: .stub(bytesPerPixel: 0.0042))
    #expect(
        stub.reason(camera: r6, cameras: list)
            == "Canon EOS R6: the file holds no raw image data (truncated?): 0.0042 bytes per sensor pixel")
    let garbage = RawDecodeError(file: "c.dng", reason: .samplesOverWhite(fraction: 0.3, whiteLevel: 4000))
    #expect(garbage.reason(camera: r6, cameras: list).hasPrefix("Canon EOS R6: 30.0% of raw samples"))
}

/// The linked LibRaw's list: at least 0.22's 1,258 models, the EOS R6 among them.
@Test func theLinkedLibRawListsTodaysCameras() {
    #expect(LibRaw.cameras.count >= 1250)
    #expect(LibRaw.cameras.contains("Canon EOS R6"))
    #expect(LibRaw.shortVersion.hasPrefix("0.2") && LibRaw.shortVersion >= "0.22")
}

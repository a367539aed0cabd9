/// Re-mosaiced real photos: a rendered photo taken back to scene-linear and mosaiced into a Bayer DNG that carries
/// a real camera's metadata. Only ever generated on demand (never committed): the photo is not ours to publish.

extension CameraProfile {
    /// Canon EOS 5D Mark IV: ColorMatrix1 (XYZ → camera, D65) as Adobe publishes it (dcraw `adobe_coeff`).
    public static let canonEOS5DMarkIV = CameraProfile(
        make: "Canon", model: "Canon EOS 5D Mark IV", uniqueCameraModel: "Canon EOS 5D Mark IV",
        lensMake: "Canon", lensModel: "EF24-70mm f/2.8L II USM", bodySerial: "012345678901",
        colorMatrix1: [0.6446, -0.0366, -0.0864, -0.4436, 1.2204, 0.2513, -0.0952, 0.2496, 0.6348])
    /// Sony ILCE-7M3 (α7 III): ColorMatrix1 from dcraw `adobe_coeff`.
    public static let sonyA7III = CameraProfile(
        make: "SONY", model: "ILCE-7M3", uniqueCameraModel: "Sony ILCE-7M3",
        lensMake: "Sony", lensModel: "FE 24-105mm F4 G OSS", bodySerial: "3312345",
        colorMatrix1: [0.7374, -0.2389, -0.0551, -0.5435, 1.3162, 0.2519, -0.1006, 0.1795, 0.6552])

    /// Profiles selectable by name (`readback corpus remosaic --camera`).
    public static let named: [(name: String, profile: CameraProfile)] = [
        ("canon-5d4", .canonEOS5DMarkIV), ("sony-a7m3", .sonyA7III), ("synthetic", .synthetic),
    ]
}

/// Mosaics a scene-linear photo into a Bayer DNG.
public enum Remosaic {
    /// - Parameters:
    ///   - photo: scene-linear RGB (linear sRGB primaries, 1.0 = diffuse white, values above 1 are HDR highlights),
    ///     upright.
    ///   - camera: the camera whose colour matrix and names the DNG carries; the photo goes through its
    ///     ColorMatrix1, so LibRaw's camera → sRGB matrix brings it back.
    ///   - capture: Exif/GPS/XMP to write (MakerNote off by default: a real maker's parser would misread ours).
    ///   - pattern: the CFA.
    ///   - bitsPerSample: 12, 14 or 16.
    ///   - headroomStops: diffuse white sits this far below the clip; highlights above 2^headroomStops clip.
    ///   - seed: read-noise seed.
    ///   - noise: sensor noise at an ISO (`SensorNoise`): replaces the 1-code read noise, and puts diffuse white
    ///     `SensorNoise.cameraHeadroomStops` under the clip as a camera's exposure does (`headroomStops` is then
    ///     unused); the Exif ISO is the noise's.
    ///   - noiseless: with `noise`, write its noiseless twin instead: the same scene, headroom and metadata without
    ///     any noise (the clean truth of the noisy file).
    /// - Returns: the DNG bytes.
    public static func dng(
        photo: RGBImage, camera: CameraProfile, capture: CaptureMetadata = .remosaic, pattern: CFAPattern = .rggb,
        bitsPerSample: Int = 14, headroomStops: Double = 4, seed: UInt64 = 1, noise: SensorNoise? = nil,
        noiseless: Bool = false
    ) -> [UInt8] {
        var spec = DNGSpec(
            layout: .bayer(pattern), bitsPerSample: bitsPerSample, headroomStops: headroomStops, noiseSigma: 1,
            seed: seed, orientation: 1, camera: camera, capture: capture)
        if let noise { spec = noiseless ? noise.cleanSpec(spec, seed: seed) : noise.spec(spec, seed: seed) }
        return DNGWriter.write(scene: photo, spec: spec)
    }
}

extension CaptureMetadata {
    /// The standard capture without the synthetic MakerNote.
    public static let remosaic: CaptureMetadata = {
        var c = CaptureMetadata.standard
        c.makerNote = false
        return c
    }()
}

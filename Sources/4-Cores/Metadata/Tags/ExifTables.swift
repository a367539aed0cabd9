/// Exif/TIFF tag tables as data (CIPA DC-008-2023 Exif 3.0 §4.6; TIFF 6.0; DNG 1.6 for structural tags).
/// Names and groups follow exiftool (`exiftool -G1`), since that is how users know them.
public enum ExifTables {
    private static func t(
        _ group: String, _ id: UInt16, _ name: String, _ c: Criticality = .informational, _ kind: TagKind = .plain,
        structural: Bool = false, conversion: ExiftoolConversion = .none, print: ValueRule.PrintForm? = nil
    ) -> TagDefinition {
        TagDefinition(
            group: group, name: name, id: id, kind: kind, criticality: c, structural: structural,
            conversion: conversion, rule: print.map { ValueRule.printed($0) })
    }

    /// IFD0 (TIFF 6.0 baseline and extension tags, TIFF/EP, Windows XP tags).
    public static let ifd0: [TagDefinition] = {
        let g = "IFD0"
        return [
            t(g, 0x00FE, "SubfileType", structural: true),
            t(g, 0x00FF, "OldSubfileType", structural: true),
            t(g, 0x0100, "ImageWidth", structural: true),
            t(g, 0x0101, "ImageHeight", structural: true),
            t(g, 0x0102, "BitsPerSample", structural: true),
            t(g, 0x0103, "Compression", structural: true),
            t(g, 0x0106, "PhotometricInterpretation", structural: true),
            t(g, 0x010E, "ImageDescription", .important),
            t(g, 0x010F, "Make", .critical),
            t(g, 0x0110, "Model", .critical),
            t(g, 0x0111, "StripOffsets", structural: true),
            t(g, 0x0112, "Orientation", .critical),
            t(g, 0x0115, "SamplesPerPixel", structural: true),
            t(g, 0x0116, "RowsPerStrip", structural: true),
            t(g, 0x0117, "StripByteCounts", structural: true),
            t(g, 0x011A, "XResolution"),
            t(g, 0x011B, "YResolution"),
            t(g, 0x011C, "PlanarConfiguration", structural: true),
            t(g, 0x0128, "ResolutionUnit"),
            t(g, 0x0131, "Software", structural: true),
            t(g, 0x0132, "ModifyDate", .important, .dateTime),
            t(g, 0x013B, "Artist", .important),
            t(g, 0x013E, "WhitePoint"),
            t(g, 0x013F, "PrimaryChromaticities"),
            t(g, 0x0142, "TileWidth", structural: true),
            t(g, 0x0143, "TileLength", structural: true),
            t(g, 0x0144, "TileOffsets", structural: true),
            t(g, 0x0145, "TileByteCounts", structural: true),
            t(g, 0x014A, "SubIFD", structural: true),
            t(g, 0x0201, "ThumbnailOffset", structural: true),
            t(g, 0x0202, "ThumbnailLength", structural: true),
            t(g, 0x0211, "YCbCrCoefficients"),
            t(g, 0x0212, "YCbCrSubSampling", structural: true),
            t(g, 0x0213, "YCbCrPositioning", structural: true),
            t(g, 0x0214, "ReferenceBlackWhite"),
            t(g, 0x4746, "Rating", .important),
            t(g, 0x4749, "RatingPercent", .important),
            t(g, 0x828D, "CFARepeatPatternDim", structural: true),
            t(g, 0x828E, "CFAPattern2", structural: true),
            t(g, 0x8298, "Copyright", .important),
            t(g, 0x9C9B, "XPTitle", .important, .ucs2),
            t(g, 0x9C9C, "XPComment", .important, .ucs2),
            t(g, 0x9C9D, "XPAuthor", .important, .ucs2),
            t(g, 0x9C9E, "XPKeywords", .important, .ucs2),
            t(g, 0x9C9F, "XPSubject", .important, .ucs2),
            t(g, 0xC612, "DNGVersion", .informational, .byteList, structural: true),
            t(g, 0xC613, "DNGBackwardVersion", .informational, .byteList, structural: true),
            t(g, 0xC614, "UniqueCameraModel", structural: true),
            t(g, 0xC621, "ColorMatrix1", structural: true),
            t(g, 0xC622, "ColorMatrix2", structural: true),
            t(g, 0xC627, "AnalogBalance", structural: true),
            t(g, 0xC628, "AsShotNeutral", structural: true),
            t(g, 0xC62A, "BaselineExposure", structural: true),
            t(g, 0xC62B, "BaselineNoise", structural: true),
            t(g, 0xC62C, "BaselineSharpness", structural: true),
            t(g, 0xC62E, "LinearResponseLimit", structural: true),
            t(g, 0xC630, "DNGLensInfo", structural: true),
            t(g, 0xC633, "ShadowScale", structural: true),
            t(g, 0xC65A, "CalibrationIlluminant1", structural: true),
            t(g, 0xC65B, "CalibrationIlluminant2", structural: true),
        ]
    }()

    /// The Exif IFD (CIPA DC-008 §4.6.5). `print:` is exiftool's PrintConv for the tag (Exif.pm), the precision a
    /// user reads and `exiftool -tagsFromFile` writes back: a difference within it is a rounding, not a change.
    public static let exifIFD: [TagDefinition] = {
        let g = "ExifIFD"
        return [
            t(g, 0x829A, "ExposureTime", .critical, print: .exposureTime),
            t(g, 0x829D, "FNumber", .critical, print: .fNumber),
            t(g, 0x8822, "ExposureProgram", .important),
            t(g, 0x8824, "SpectralSensitivity"),
            t(g, 0x8827, "ISO", .critical),
            t(g, 0x8830, "SensitivityType"),
            t(g, 0x8831, "StandardOutputSensitivity"),
            t(g, 0x8832, "RecommendedExposureIndex"),
            t(g, 0x8833, "ISOSpeed", .important),
            t(g, 0x9000, "ExifVersion", .informational, .version),
            t(g, 0x9003, "DateTimeOriginal", .critical, .dateTime),
            t(g, 0x9004, "CreateDate", .critical, .dateTime),
            t(g, 0x9010, "OffsetTime", .important),
            t(g, 0x9011, "OffsetTimeOriginal", .critical),
            t(g, 0x9012, "OffsetTimeDigitized", .important),
            t(g, 0x9101, "ComponentsConfiguration", .informational, .byteList, structural: true),
            t(g, 0x9102, "CompressedBitsPerPixel", structural: true),
            t(g, 0x9201, "ShutterSpeedValue", .important, conversion: .apexShutter, print: .exposureTime),
            t(g, 0x9202, "ApertureValue", .important, conversion: .apexAperture, print: .oneDecimal),
            t(g, 0x9203, "BrightnessValue"),
            t(g, 0x9204, "ExposureCompensation", .important, print: .fraction),
            t(g, 0x9205, "MaxApertureValue", .important, conversion: .apexAperture, print: .oneDecimal),
            t(g, 0x9206, "SubjectDistance", .important),
            t(g, 0x9207, "MeteringMode", .important),
            t(g, 0x9208, "LightSource", .important),
            t(g, 0x9209, "Flash", .important),
            t(g, 0x920A, "FocalLength", .critical, print: .oneDecimal),
            t(g, 0x9214, "SubjectArea"),
            t(g, 0x9286, "UserComment", .important, .encodedText),
            t(g, 0x9290, "SubSecTime", .important),
            t(g, 0x9291, "SubSecTimeOriginal", .critical),
            t(g, 0x9292, "SubSecTimeDigitized", .important),
            t(g, 0x9400, "AmbientTemperature"),
            t(g, 0x9401, "Humidity"),
            t(g, 0x9402, "Pressure"),
            t(g, 0x9403, "WaterDepth"),
            t(g, 0x9404, "Acceleration"),
            t(g, 0x9405, "CameraElevationAngle"),
            t(g, 0xA000, "FlashpixVersion", .informational, .version),
            t(g, 0xA001, "ColorSpace", .important),
            t(g, 0xA002, "ExifImageWidth", structural: true),
            t(g, 0xA003, "ExifImageHeight", structural: true),
            t(g, 0xA004, "RelatedSoundFile"),
            t(g, 0xA20B, "FlashEnergy"),
            t(g, 0xA20E, "FocalPlaneXResolution"),
            t(g, 0xA20F, "FocalPlaneYResolution"),
            t(g, 0xA210, "FocalPlaneResolutionUnit"),
            t(g, 0xA214, "SubjectLocation"),
            t(g, 0xA215, "ExposureIndex"),
            t(g, 0xA217, "SensingMethod"),
            t(g, 0xA300, "FileSource"),
            t(g, 0xA301, "SceneType"),
            t(g, 0xA401, "CustomRendered"),
            t(g, 0xA402, "ExposureMode", .important),
            t(g, 0xA403, "WhiteBalance", .important),
            t(g, 0xA404, "DigitalZoomRatio"),
            t(g, 0xA405, "FocalLengthIn35mmFormat", .important),
            t(g, 0xA406, "SceneCaptureType"),
            t(g, 0xA407, "GainControl"),
            t(g, 0xA408, "Contrast"),
            t(g, 0xA409, "Saturation"),
            t(g, 0xA40A, "Sharpness"),
            t(g, 0xA40C, "SubjectDistanceRange"),
            t(g, 0xA420, "ImageUniqueID", .important),
            t(g, 0xA430, "OwnerName", .important),
            t(g, 0xA431, "SerialNumber", .important),
            t(g, 0xA432, "LensInfo", .critical),
            t(g, 0xA433, "LensMake", .critical),
            t(g, 0xA434, "LensModel", .critical),
            t(g, 0xA435, "LensSerialNumber", .important),
            t(g, 0xA460, "CompositeImage"),
            t(g, 0xA500, "Gamma"),
        ]
    }()

    /// The GPS IFD (CIPA DC-008 §4.6.6).
    public static let gps: [TagDefinition] = {
        let g = "GPS"
        return [
            t(g, 0x0000, "GPSVersionID", .informational, .byteList),
            t(g, 0x0001, "GPSLatitudeRef", .critical),
            t(g, 0x0002, "GPSLatitude", .critical, .gpsCoordinate),
            t(g, 0x0003, "GPSLongitudeRef", .critical),
            t(g, 0x0004, "GPSLongitude", .critical, .gpsCoordinate),
            t(g, 0x0005, "GPSAltitudeRef", .critical),
            t(g, 0x0006, "GPSAltitude", .critical),
            t(g, 0x0007, "GPSTimeStamp", .important),
            t(g, 0x0008, "GPSSatellites"),
            t(g, 0x0009, "GPSStatus"),
            t(g, 0x000A, "GPSMeasureMode"),
            t(g, 0x000B, "GPSDOP"),
            t(g, 0x000C, "GPSSpeedRef", .important),
            t(g, 0x000D, "GPSSpeed", .important),
            t(g, 0x000E, "GPSTrackRef"),
            t(g, 0x000F, "GPSTrack"),
            t(g, 0x0010, "GPSImgDirectionRef", .important),
            t(g, 0x0011, "GPSImgDirection", .important),
            t(g, 0x0012, "GPSMapDatum"),
            t(g, 0x0013, "GPSDestLatitudeRef"),
            t(g, 0x0014, "GPSDestLatitude", .informational, .gpsCoordinate),
            t(g, 0x0015, "GPSDestLongitudeRef"),
            t(g, 0x0016, "GPSDestLongitude", .informational, .gpsCoordinate),
            t(g, 0x0017, "GPSDestBearingRef"),
            t(g, 0x0018, "GPSDestBearing"),
            t(g, 0x0019, "GPSDestDistanceRef"),
            t(g, 0x001A, "GPSDestDistance"),
            t(g, 0x001B, "GPSProcessingMethod", .informational, .encodedText),
            t(g, 0x001C, "GPSAreaInformation", .informational, .encodedText),
            t(g, 0x001D, "GPSDateStamp", .important),
            t(g, 0x001E, "GPSDifferential"),
            t(g, 0x001F, "GPSHPositioningError", .important),
        ]
    }()

    /// The Interoperability IFD (CIPA DC-008 §4.6.7).
    public static let interop: [TagDefinition] = {
        let g = "InteropIFD"
        return [
            t(g, 0x0001, "InteropIndex"),
            t(g, 0x0002, "InteropVersion", .informational, .version),
            t(g, 0x1000, "RelatedImageFileFormat"),
            t(g, 0x1001, "RelatedImageWidth"),
            t(g, 0x1002, "RelatedImageHeight"),
        ]
    }()

    /// IFD1, the thumbnail IFD (CIPA DC-008 §4.5.2). Every entry is structural: a HEIC carries no Exif thumbnail.
    public static let ifd1: [TagDefinition] = {
        let g = "IFD1"
        return [
            t(g, 0x00FE, "SubfileType", structural: true),
            t(g, 0x0100, "ImageWidth", structural: true),
            t(g, 0x0101, "ImageHeight", structural: true),
            t(g, 0x0102, "BitsPerSample", structural: true),
            t(g, 0x0103, "Compression", structural: true),
            t(g, 0x0106, "PhotometricInterpretation", structural: true),
            t(g, 0x0111, "StripOffsets", structural: true),
            t(g, 0x0112, "Orientation", structural: true),
            t(g, 0x0115, "SamplesPerPixel", structural: true),
            t(g, 0x0116, "RowsPerStrip", structural: true),
            t(g, 0x0117, "StripByteCounts", structural: true),
            t(g, 0x011A, "XResolution", structural: true),
            t(g, 0x011B, "YResolution", structural: true),
            t(g, 0x011C, "PlanarConfiguration", structural: true),
            t(g, 0x0128, "ResolutionUnit", structural: true),
            t(g, 0x0201, "ThumbnailOffset", structural: true),
            t(g, 0x0202, "ThumbnailLength", structural: true),
            t(g, 0x0213, "YCbCrPositioning", structural: true),
        ]
    }()

    /// IFD0 tags outside the tables that describe the RAW container rather than the photo: DNG tags
    /// 0xC612–0xC7FF (DNG 1.6 §6), TIFF/EP sensor tags, and the XMP/IPTC/ICC carriers (0x02BC, 0x83BB, 0x8773), whose
    /// contents are compared in their own families. A RAW → HEIC conversion drops them on purpose.
    public static func isStructuralIFD0Tag(_ id: UInt16) -> Bool {
        (0xC612...0xC7FF).contains(id) || [0x02BC, 0x83BB, 0x8773, 0x9217, 0x828D, 0x828E, 0x9216].contains(id)
    }

    /// Every Exif table.
    public static let all: [TagDefinition] = ifd0 + exifIFD + gps + interop + ifd1

    private static let index: [String: [UInt16: TagDefinition]] = {
        var out: [String: [UInt16: TagDefinition]] = [:]
        for d in all { out[d.group, default: [:]][d.id] = d }
        return out
    }()

    /// The definition for a tag id in an exiftool group, nil when not in the tables.
    public static func definition(group: String, id: UInt16) -> TagDefinition? { index[group]?[id] }

    /// The exiftool -G1 group for an exiv2 Exif group name ("Image" → "IFD0", "Photo" → "ExifIFD", ...);
    /// nil for MakerNote and other groups outside the tables.
    public static func exiftoolGroup(forExiv2Group g: String) -> String? {
        switch g {
        case "Image", "PanasonicRaw": return "IFD0"
        case "Photo": return "ExifIFD"
        case "GPSInfo": return "GPS"
        case "Iop": return "InteropIFD"
        case "Thumbnail": return "IFD1"
        default: return nil
        }
    }
}

/// # The GainMap module
///
/// HDR gain maps in HEIF, pure Swift (imports HEIF only): ISO 21496-1 `tmap` and Apple's `hdrgainmap`.
///
/// Metadata (ISO 21496-1 C.2.2; ISO/IEC 23008-12 AMD 1 ToneMapImage):
/// ```swift
/// let d = ToneMapImage.decode(tmapBody)          // parse + GainMapValidation.validate → findings with offsets
/// d.usableMetadata                               // GainMapMetadata (exact Fraction/UFraction) when no error
/// try ToneMapImage(metadata: m).encoded()        // 62/142 bytes; the same validation refuses bad metadata
/// ```
/// Apple: `AppleGainMap` (URN, namespaces, headroom formula, Apple ↔ ISO), `AppleGainMapXMP.parse/packet`,
/// `AppleMakerNote.parse/find(inExif:)`. Adobe/Samsung `hdrgm` XMP: `AdobeGainMapXMP`.
///
/// Math (`GainMapMath`, planar `LinearImage`): `compute(base:alternate:options:)` → `ComputedGainMap`
/// (metadata + 8-bit map), `quantize`/`dequantize`, `weight(displayHeadroom:…)`, `apply(…displayHeadroom:)`,
/// `applyApple(…)`, `errorInStops(…)`.
///
/// Files: `GainMapInspector.inspect(file, decode:)` → one `GainMapReport` per gain map with a verdict per part
/// (description, metadata, data, colour, consistency); `GainMapWriter.add(to:baseItemID:gainMap:metadata:…)`
/// writes both forms with single-target references (libheif 1.15 still opens the file).
///
/// Every finding code is a `gainmap.*` case of the catalogue (`FindingCode` in Findings), named as it is there.
public enum GainMapModule {}

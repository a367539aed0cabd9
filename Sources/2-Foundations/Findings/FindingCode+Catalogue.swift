extension FindingCode {
    /// The catalogue, in documentation order: code, default severity, topic, effect on a conversion, meaning.
    ///
    /// The effect is what Batch's AuditVerifier does with one finding of the code at its default severity: an error
    /// that makes the output unusable (container, input, output, `decode.primary-failed`, `render.blank`) fails the
    /// conversion; any other error, and a warning about metadata, orientation, the gain map, the file facts, the
    /// sidecar or the pixels (`render.cast`, `render.blank`, `render.orientation`), keeps the original; the rest is
    /// information only.
    static let catalogue: [Entry] = [
        Entry(
            .containerBoxTruncated, .error, .container, .failsConversion,
            "a box's declared size runs past its parent or the end of the file (offset of the box)"),
        Entry(
            .containerBoxInvalidSize, .error, .container, .failsConversion,
            "a box size smaller than its header, or a header cut short"),
        Entry(
            .containerBoxMalformed, .error, .container, .failsConversion,
            "a box's fields run past its end or hold impossible values (offset of the box)"),
        Entry(
            .containerFileTrailingBytes, .warning, .container, .informationOnly,
            "bytes after the last box that do not form a box"),
        Entry(.containerFtypMissing, .error, .container, .failsConversion, "no ftyp box at the start of the file"),
        Entry(
            .containerBrandMif1Missing, .warning, .container, .informationOnly,
            "ftyp lists no mif1 brand (ISO/IEC 23008-12 §10.2.1)"),
        Entry(.containerMetaMissing, .error, .container, .failsConversion, "no top-level meta box"),
        Entry(
            .containerMetaDuplicate, .warning, .container, .informationOnly,
            "more than one top-level meta box; only the first is read"),
        Entry(
            .containerHdlrNotPict, .error, .container, .failsConversion, "the meta handler is missing or is not 'pict'"),
        Entry(
            .containerBoxDuplicate, .error, .container, .failsConversion,
            "a box that may appear once in meta appears again; only the first is read"),
        Entry(.containerPitmMissing, .error, .container, .failsConversion, "no pitm: the file has no primary item"),
        Entry(.containerPitmDangling, .error, .container, .failsConversion, "pitm names an item that does not exist"),
        Entry(.containerPitmHidden, .error, .container, .failsConversion, "the primary item is hidden"),
        Entry(.containerIinfMissing, .error, .container, .failsConversion, "no iinf box"),
        Entry(.containerItemDuplicateId, .error, .container, .failsConversion, "two infe entries share one item id"),
        Entry(
            .containerItemNoLocation, .error, .container, .failsConversion,
            "an image or metadata item has no iloc entry"),
        Entry(
            .containerIspeMissing, .error, .container, .failsConversion,
            "an image item has no ispe property (ISO/IEC 23008-12 §6.5.3.1)"),
        Entry(
            .containerIlocExtentPastEof, .error, .container, .failsConversion,
            "an iloc extent ends past the end of the file or idat (offset where the extent data starts, which may itself lie past the end)"
        ),
        Entry(
            .containerIlocUnsupported, .warning, .container, .informationOnly,
            "an iloc entry uses construction method 2 or an external data reference"),
        Entry(
            .containerIlocUnknownItem, .warning, .container, .informationOnly,
            "an iloc entry for an item that iinf does not list"),
        Entry(
            .containerIrefMissingItem, .error, .container, .failsConversion,
            "a reference from or to an item id that does not exist"),
        Entry(
            .containerIrefDimgDuplicate, .error, .container, .failsConversion,
            "more than one dimg reference box from one item (ISO/IEC 23008-12 §6.6.1)"),
        Entry(
            .containerIrefCdscMultiTarget, .warning, .container, .informationOnly,
            "a cdsc reference with several targets: valid, unreadable for libheif < 1.18"),
        Entry(
            .containerIrefAuxlMultiTarget, .warning, .container, .informationOnly,
            "an auxl reference with several targets: valid, unreadable for libheif < 1.18"),
        Entry(
            .containerIpmaIndexOutOfRange, .error, .container, .failsConversion,
            "a property association points past the end of ipco"),
        Entry(
            .containerIpmaUnknownItem, .warning, .container, .informationOnly,
            "a property association for an item that iinf does not list"),
        Entry(
            .containerIpmaDuplicateItem, .error, .container, .failsConversion, "an item has more than one ipma entry"),
        Entry(
            .containerPropertyMalformed, .warning, .container, .informationOnly,
            "a property box whose fields cannot be read"),
        Entry(
            .containerPropertyNotEssential, .warning, .container, .informationOnly,
            "a transformative property (irot, imir, clap) not marked essential"),
        Entry(
            .containerPropertyTransformBeforeIspe, .warning, .container, .informationOnly,
            "a transformative property is associated before ispe"),
        Entry(
            .containerGridInvalid, .error, .container, .failsConversion,
            "a grid item whose ImageGrid payload or dimg tile count is wrong"),
        Entry(
            .containerTmapBrandWithoutItem, .error, .container, .failsConversion,
            "ftyp lists the tmap brand but there is no tmap item"),
        Entry(
            .containerTmapItemWithoutBrand, .warning, .container, .informationOnly,
            "a tmap item but no tmap brand in ftyp"),
        Entry(
            .containerTmapInputs, .error, .container, .failsConversion,
            "a tmap item without exactly two distinct existing dimg inputs [base, gain map]"),
        Entry(
            .containerAltrOrder, .warning, .container, .informationOnly,
            "no altr group lists [tmap, base] in that order, so readers ignore the gain map"),
        Entry(
            .containerExifBadOffset, .warning, .container, .informationOnly,
            "an Exif item whose 4-byte TIFF header offset does not lead to a TIFF header"),
        Entry(
            .containerLimitsExceeded, .error, .container, .failsConversion,
            "a parser limit was reached; the rest of that structure was not read"),
        Entry(
            .containerTruncated, .error, .container, .failsConversion,
            "the file ends inside a box or an item's extent (the audit's form of container.box.truncated and container.iloc.extent-past-eof)"
        ),
        Entry(.inputUnreadable, .error, .input, .failsConversion, "the source or the output cannot be read"),
        Entry(.outputMissing, .error, .output, .failsConversion, "the source has no output"),
        Entry(
            .outputNotHeif, .warning, .output, .informationOnly,
            "the output is not a HEIF-family file: only its metadata and orientation were compared"),
        Entry(
            .sizeRatio, .warning, .size, .informationOnly,
            "the output's size divided by the source's is outside the policy's size-ratio bounds"),
        Entry(.decodePrimaryFailed, .error, .decode, .failsConversion, "the primary image does not decode"),
        Entry(
            .decodePrimaryRewrapped, .info, .decode, .informationOnly,
            "libheif refuses the file as a whole; the primary decodes on its own"),
        Entry(.decodeGainmapFailed, .error, .decode, .keepsOriginal, "a gain map does not decode"),
        Entry(
            .signallingNclxMissing, .error, .signalling, .keepsOriginal,
            "an HDR output, one with a gain map, or one whose source had nclx has no colr on its primary image"),
        Entry(
            .signallingBitDepthMismatch, .warning, .signalling, .informationOnly,
            "an item's pixi bit depth differs from the one its hvcC codes"),
        Entry(
            .metadataLost, .error, .metadata, .keepsOriginal,
            "a field of the source is missing from the output (warning for informational fields)"),
        Entry(
            .metadataChanged, .error, .metadata, .keepsOriginal,
            "a field's value differs between the source and the output (warning for informational fields)"),
        Entry(
            .metadataRounded, .warning, .metadata, .keepsOriginal,
            "a field's value was rounded (within the tag's tolerance)"),
        Entry(
            .metadataReencoded, .info, .metadata, .informationOnly,
            "a field was written in another encoding or place with the same value"),
        Entry(.metadataAdded, .info, .metadata, .informationOnly, "the output has a field the source did not have"),
        Entry(
            .metadataKnownLoss, .knownLoss, .metadata, .informationOnly,
            "a field the policy lists as a known loss is missing from the output"),
        Entry(
            .metadataKnownLossNotHappened, .info, .metadata, .informationOnly,
            "a field the policy lists as a known loss survived"),
        Entry(
            .metadataUnreadable, .error, .metadata, .keepsOriginal,
            "the output's metadata cannot be read (warning for the source's)"),
        Entry(
            .metadataNone, .info, .metadata, .informationOnly,
            "the source holds no Exif, XMP or MakerNote container (a headerless RAW dump): it has nothing to lose"),
        Entry(
            .orientationChanged, .error, .orientation, .keepsOriginal,
            "the output is shown turned or mirrored against the source"),
        Entry(
            .orientationInconsistent, .error, .orientation, .keepsOriginal,
            "irot/imir and Exif Orientation disagree (warning without a source)"),
        Entry(
            .orientationDoubleRotation, .info, .orientation, .informationOnly,
            "irot/imir and Exif Orientation both turn the image; readers that apply both show it turned twice"),
        Entry(
            .orientationUnverified, .info, .orientation, .informationOnly,
            "the orientation could not be compared with the source"),
        Entry(
            .gainmapMissing, .error, .gainMap, .keepsOriginal,
            "the source had a gain map (or the policy requires one) and the output has none"),
        Entry(
            .gainmapTmapVersionUnsupported, .error, .gainMap, .keepsOriginal,
            "the tmap body's version is not one ISO 21496-1 defines"),
        Entry(
            .gainmapTmapMinimumVersionUnsupported, .error, .gainMap, .keepsOriginal,
            "the tmap body's minimum_version is above what readers support, so they ignore the gain map"),
        Entry(
            .gainmapTmapWriterVersionBelowMinimum, .error, .gainMap, .keepsOriginal,
            "the tmap body's writer version is below its minimum version"),
        Entry(.gainmapTmapGammaZero, .error, .gainMap, .keepsOriginal, "a tmap gamma is zero"),
        Entry(.gainmapTmapDenominatorZero, .error, .gainMap, .keepsOriginal, "a tmap fraction has denominator zero"),
        Entry(.gainmapTmapMinExceedsMax, .error, .gainMap, .keepsOriginal, "a tmap minimum exceeds its maximum"),
        Entry(
            .gainmapTmapLength, .error, .gainMap, .keepsOriginal, "the tmap body is empty or shorter than its fields"),
        Entry(.gainmapTmapExtraBytes, .error, .gainMap, .keepsOriginal, "the tmap body has bytes after its fields"),
        Entry(
            .gainmapTmapNonstandardFlags, .warning, .gainMap, .keepsOriginal,
            "the tmap body sets flag bits ISO 21496-1 reserves"),
        Entry(
            .gainmapTmapCommonDenominator, .warning, .gainMap, .keepsOriginal,
            "the tmap body uses the common-denominator layout (a libultrahdr draft) that ISO 21496-1 readers such as libavif misread"
        ),
        Entry(
            .gainmapTmapChannelCount, .error, .gainMap, .keepsOriginal,
            "the tmap body has a channel count other than 1 or 3"),
        Entry(.gainmapTmapBodyMissing, .error, .gainMap, .keepsOriginal, "a tmap item has no readable body"),
        Entry(
            .gainmapAppleXmpMissing, .error, .gainMap, .keepsOriginal,
            "an Apple hdrgainmap auxiliary image without its HDRGainMap XMP"),
        Entry(
            .gainmapAppleVersionMissing, .error, .gainMap, .keepsOriginal,
            "an Apple gain map's XMP has no HDRGainMapVersion"),
        Entry(
            .gainmapAppleHeadroomMissing, .error, .gainMap, .keepsOriginal,
            "an Apple gain map's XMP has no HDRGainMapHeadroom (warning when the MakerNote has the headroom tags)"),
        Entry(
            .gainmapAuxMetadataMissing, .error, .gainMap, .keepsOriginal,
            "no usable hdrgm XMP describes another vendor's auxiliary gain map"),
        Entry(.gainmapDescriptionItemMissing, .error, .gainMap, .keepsOriginal, "the gain-map image item is missing"),
        Entry(.gainmapDescriptionIspeMissing, .error, .gainMap, .keepsOriginal, "the gain-map item has no ispe"),
        Entry(.gainmapDescriptionPixiMissing, .warning, .gainMap, .keepsOriginal, "the gain-map item has no pixi"),
        Entry(
            .gainmapDescriptionCodecConfigMissing, .error, .gainMap, .keepsOriginal,
            "the gain-map item, or a tile of its grid, has no codec configuration (hvcC, av1C)"),
        Entry(
            .gainmapDescriptionSizeImplausible, .warning, .gainMap, .keepsOriginal,
            "the gain map is not 1, 1/2 or 1/4 of the base image's size"),
        Entry(.gainmapDescriptionNotHidden, .warning, .gainMap, .keepsOriginal, "the gain-map item is not hidden"),
        Entry(.gainmapDataMissing, .error, .gainMap, .keepsOriginal, "there is no gain-map item, so no gain-map data"),
        Entry(.gainmapDataConstant, .error, .gainMap, .keepsOriginal, "the gain map's pixels are all one value"),
        Entry(.gainmapDataUndecodable, .error, .gainMap, .keepsOriginal, "the gain-map item does not decode"),
        Entry(
            .gainmapDataNotDecoded, .info, .gainMap, .informationOnly,
            "the gain map's pixels were not decoded (decoding off)"),
        Entry(.gainmapColrMissing, .warning, .gainMap, .keepsOriginal, "the gain-map item has no colr"),
        Entry(
            .gainmapTmapColrMissing, .warning, .gainMap, .keepsOriginal,
            "the tmap item has no colr: the HDR rendition's colour space is left to guesswork"),
        Entry(.gainmapTmapIspeMissing, .error, .gainMap, .keepsOriginal, "the tmap item has no ispe"),
        Entry(
            .gainmapTmapIspeMismatch, .error, .gainMap, .keepsOriginal,
            "the tmap item's ispe differs from the base image's"),
        Entry(
            .gainmapTmapTransform, .warning, .gainMap, .keepsOriginal,
            "the tmap item carries a transformative property (libavif rejects transforms on tmap)"
        ),
        Entry(
            .gainmapDimgInvalid, .error, .gainMap, .keepsOriginal,
            "the tmap item's dimg is not two distinct images [base, gain map], or it has more than one dimg box"),
        Entry(
            .gainmapAltrOrder, .error, .gainMap, .keepsOriginal,
            "an altr group lists the base before the tmap item, so readers ignore the gain map"),
        Entry(.gainmapAltrMissing, .error, .gainMap, .keepsOriginal, "no altr group holds the tmap item and the base"),
        Entry(
            .gainmapBrandMissing, .error, .gainMap, .keepsOriginal,
            "a tmap item but no tmap brand in ftyp, so readers ignore the gain map"),
        Entry(
            .gainmapBrandWithoutTmap, .error, .gainMap, .keepsOriginal,
            "ftyp lists the tmap brand but the file has no tmap item"),
        Entry(
            .gainmapHeadroomMismatch, .warning, .gainMap, .keepsOriginal,
            "the Apple or hdrgm headroom and the ISO alternate_hdr_headroom of one gain map disagree"),
        Entry(
            .fileModeWidened, .error, .fileFacts, .keepsOriginal, "the output is open to more people than the source"),
        Entry(
            .fileMtimeChanged, .warning, .fileFacts, .keepsOriginal,
            "the output's modification time differs from the source's"),
        Entry(
            .fileOwnerChanged, .info, .fileFacts, .informationOnly,
            "the output belongs to another user or group than the source"),
        Entry(
            .fileXattrLost, .warning, .fileFacts, .keepsOriginal,
            "the output lost an extended attribute (error for tags, rating and comment)"),
        Entry(
            .fileXattrChanged, .warning, .fileFacts, .keepsOriginal,
            "an extended attribute differs between the source and the output (error for tags, rating and comment)"),
        Entry(
            .fileXattrDropped, .info, .fileFacts, .informationOnly,
            "a checksum attribute of the source's bytes was deliberately not carried"),
        Entry(
            .fileXattrUnsupported, .warning, .fileFacts, .keepsOriginal,
            "the output's filesystem does not support extended attributes (error when tags, rating or comment are lost)"
        ),
        Entry(
            .sidecarEditsNotApplied, .warning, .sidecar, .keepsOriginal,
            "the source's XMP sidecar holds edits the output does not show"),
        Entry(
            .renderBlank, .error, .render, .failsConversion,
            "the output is a constant frame where the reference render has content"),
        Entry(
            .renderOrientation, .error, .render, .keepsOriginal,
            "the output's pixels match the reference render only when turned or mirrored (warning when the reference's own orientation is ambiguous)"
        ),
        Entry(
            .renderCast, .warning, .render, .keepsOriginal,
            "neutral areas of the reference render are coloured in the output (error above the cast error limit)"),
        Entry(
            .renderExposure, .warning, .render, .informationOnly,
            "the output's mid-tones are brighter or darker than the reference render's (error outside the exposure error range)"
        ),
        Entry(
            .renderNoReference, .info, .render, .informationOnly,
            "the source has no usable reference render (embedded preview, thumbnail); not compared"),
        Entry(
            .renderSkipped, .info, .render, .informationOnly,
            "the output cannot be compared with the reference render (HDR transfer, decode failure)"),
        Entry(
            .gainmapJpegMpfMissing, .error, .gainMap, .keepsOriginal,
            "a JPEG announces a gain map but has no MPF index, which readers follow to find the gain-map image"),
        Entry(
            .gainmapJpegMpfOffsetPastEof, .error, .gainMap, .keepsOriginal,
            "an MPF entry of a JPEG points past the end of the file"),
        Entry(
            .gainmapJpegImageAbsent, .error, .gainMap, .keepsOriginal,
            "a JPEG declares a gain-map image (hdrgm XMP, ISO 21496-1 block, MPF entry) that is not in the file"),
        Entry(
            .gainmapJpegXmpLengthMismatch, .warning, .gainMap, .keepsOriginal,
            "the GContainer Item:Length of a JPEG's gain map disagrees with its MPF size"),
        Entry(
            .gainmapJpegPrimarySignalMissing, .error, .gainMap, .keepsOriginal,
            "a JPEG carries a gain-map image but its primary does not announce it (hdrgm XMP or ISO 21496-1 block)"),
        Entry(
            .gainmapFormChanged, .info, .gainMap, .informationOnly,
            "the output carries the source's gain map in another form (Apple to ISO 21496-1, say): not a loss"),
        Entry(
            .gainmapMetadataChanged, .warning, .gainMap, .keepsOriginal,
            "the output's gain map has other headrooms, gamma, offsets or base rendition than the source's"),
        Entry(
            .decodeLibavifRefused, .warning, .decode, .informationOnly,
            "libavif (dav1d) does not decode an AVIF's primary image that libheif decodes: viewers built on libavif show nothing"
        ),
        Entry(
            .renderSaturation, .warning, .render, .informationOnly,
            "a scene without neutral tones is more or less saturated than the reference render, with the same hues (not a cast)"
        ),
        Entry(
            .decodeUnsupported, .warning, .decode, .informationOnly,
            "a feature this build cannot decode (an image sequence, an AVC or uncompressed primary): not judged by its pixels"
        ),
        Entry(
            .containerUnsupportedEssential, .warning, .container, .informationOnly,
            "an item has an essential property Readback does not understand: that item is not judged by its pixels"),
        Entry(
            .conformanceIspeMismatch, .warning, .conformance, .informationOnly,
            "a coded item's ispe differs from the size its stream decodes to (HEIF §6.5.3.1); error when a conversion introduced it"
        ),
        Entry(
            .conformanceClapOdd, .warning, .conformance, .informationOnly,
            "a clap crops a 4:2:0 or 4:2:2 item at an odd width, height or offset (MIAF §7.3.6.7); error when a conversion introduced it"
        ),
        Entry(
            .conformanceBoxVersion, .warning, .conformance, .informationOnly,
            "a meta, hdlr, iloc, iinf, infe or pitm box has a version HEIF does not allow (HEIF §10.2.1.1); error when a conversion introduced it"
        ),
        Entry(
            .conformanceFtypMinorVersion, .warning, .conformance, .informationOnly,
            "the major brand is a HEIF brand but ftyp's minor_version is not 0 (HEIF §10.1); error when a conversion introduced it"
        ),
        Entry(
            .conformancePrimaryNotImage, .warning, .conformance, .informationOnly,
            "the primary item is not a coded or derived image item (HEIF §6.2); error when a conversion introduced it"),
        Entry(
            .conformanceThumbnailChain, .warning, .conformance, .informationOnly,
            "a thumbnail is linked by thmb to another thumbnail (HEIF §6.4.4); error when a conversion introduced it"),
        Entry(
            .conformanceDerivedVersion, .warning, .conformance, .informationOnly,
            "a grid or iovl payload has a version other than 0 (HEIF §6.6.2.2.3, §6.6.2.3.3); error when a conversion introduced it"
        ),
        Entry(
            .conformanceIdenInputs, .warning, .conformance, .informationOnly,
            "an iden item has an item body or not exactly one dimg input (HEIF §6.6.2.1); error when a conversion introduced it"
        ),
        Entry(
            .conformanceDerivationOrigin, .warning, .conformance, .informationOnly,
            "a derivation chain is cyclic or does not start at coded images (HEIF §6.6.2.3.1, MIAF §7.3.11.1); error when a conversion introduced it"
        ),
        Entry(
            .conformanceGridTileSizes, .warning, .conformance, .informationOnly,
            "a grid's tiles do not all have the same ispe (HEIF §6.6.2.3.1); error when a conversion introduced it"),
        Entry(
            .conformanceHdlrNotFirst, .warning, .conformance, .informationOnly,
            "hdlr is not the first box in meta (MIAF §7.2.1.1); error when a conversion introduced it"),
        Entry(
            .conformanceBrandMiafMissing, .warning, .conformance, .informationOnly,
            "ftyp's compatible brands lack miaf or mif1 (MIAF §7.2.1.2); error when a conversion introduced it"),
        Entry(
            .conformanceMetaXML, .warning, .conformance, .informationOnly,
            "meta holds an xml or bxml box (MIAF §7.2.1.4); error when a conversion introduced it"),
        Entry(
            .conformanceConstructionMethod, .warning, .conformance, .informationOnly,
            "a coded image item is not in the file's mdat (construction method 0), or a derived one uses method 2 (MIAF §7.2.1.7, §7.2.1.13); error when a conversion introduced it"
        ),
        Entry(
            .conformanceItemProtected, .warning, .conformance, .informationOnly,
            "an item references item protection, or meta holds ipro (MIAF §7.2.1.8); error when a conversion introduced it"
        ),
        Entry(
            .conformanceMetadataInIdat, .warning, .conformance, .informationOnly,
            "an Exif or XMP item's body is not in a MediaDataBox (MIAF §7.2.1.13); error when a conversion introduced it"
        ),
        Entry(
            .conformancePrimaryNotMaster, .warning, .conformance, .informationOnly,
            "the primary item is not a MIAF master image: an auxiliary or thumbnail image (MIAF §7.3.2); error when a conversion introduced it"
        ),
        Entry(
            .conformancePaspNotSquare, .warning, .conformance, .informationOnly,
            "an image has a pixel aspect ratio other than 1:1 (MIAF §7.3.6.5); error when a conversion introduced it"),
        Entry(
            .conformancePixiMissing, .warning, .conformance, .informationOnly,
            "a displayable image item has no pixi property (MIAF §7.3.6.6); error when a conversion introduced it"),
        Entry(
            .conformanceTransformOrder, .warning, .conformance, .informationOnly,
            "an item's transformative properties are not in the order clap, irot, imir (MIAF §7.3.6.7); error when a conversion introduced it"
        ),
        Entry(
            .conformanceIdenChain, .warning, .conformance, .informationOnly,
            "an iden item derives directly from another iden item (MIAF §7.3.9); error when a conversion introduced it"),
        Entry(
            .conformanceDerivationOrder, .warning, .conformance, .informationOnly,
            "derivations are not in MIAF's order coded, iden, grid, iden, iovl, iden (then an ISO 21496-1 tmap) (MIAF §7.3.11.1); error when a conversion introduced it"
        ),
        Entry(
            .conformanceThumbnailRatio, .warning, .conformance, .informationOnly,
            "a thumbnail has over 200 times fewer pixels than the next larger image (MIAF §7.3.3); error when a conversion introduced it"
        ),
        Entry(
            .conformanceGridTileSmall, .warning, .conformance, .informationOnly,
            "a grid's tiles are under 64 pixels wide or high (MIAF §7.3.11.4.2); error when a conversion introduced it"),
        Entry(
            .conformanceGridInputsDiffer, .warning, .conformance, .informationOnly,
            "a grid's tiles differ in coding format or decoder configuration (MIAF §7.3.11.4.1); error when a conversion introduced it"
        ),
        Entry(
            .conformanceGridTileChroma, .warning, .conformance, .informationOnly,
            "a grid's tile or output size splits a chroma sample (MIAF §7.3.11.4.1); error when a conversion introduced it"
        ),
        Entry(
            .conformanceProfileMiHB, .warning, .conformance, .informationOnly,
            "the file claims MiHB but a coded item is not HEVC Main or Main Still Picture at level 6 or lower (MIAF §A.3); error when a conversion introduced it"
        ),
        Entry(
            .conformanceProfileMiHA, .warning, .conformance, .informationOnly,
            "the file claims MiHA but a coded item is beyond HEVC 4:2:2 10-bit at level 6 (MIAF §A.4); error when a conversion introduced it"
        ),
        Entry(
            .conformanceProfileMiHE, .warning, .conformance, .informationOnly,
            "the file claims MiHE but a coded item is beyond HEVC 4:4:4 10-bit at level 6 (MIAF §A.5); error when a conversion introduced it"
        ),
        Entry(
            .conformanceGridCoverage, .warning, .conformance, .informationOnly,
            "a grid's tiles do not cover its output size: tile width × columns or tile height × rows is smaller (HEIF §6.6.2.3.1); error when a conversion introduced it"
        ),
        Entry(
            .conformanceIpmaOrder, .warning, .conformance, .informationOnly,
            "ipma's entries are not in increasing item_ID order (ISO/IEC 14496-12 §8.11.14.1); error when a conversion introduced it"
        ),
        Entry(
            .conformanceIinfOrder, .warning, .conformance, .informationOnly,
            "iinf's entries are not in increasing item_ID order (ISO/IEC 14496-12 §8.11.6.1); error when a conversion introduced it"
        ),
        Entry(
            .conformanceConfigNotEssential, .warning, .conformance, .informationOnly,
            "a decoder configuration (hvcC, avcC, jpgC) is not marked essential (HEIF §B.2.3.1, §E.2.3, §H.2.2); error when a conversion introduced it"
        ),
        Entry(
            .decodeCrashed, .error, .decode, .failsConversion,
            "a decoder's worker process died on the file (the signal and the library call are named); the run went on"),
        Entry(
            .decodeTimeout, .error, .decode, .failsConversion,
            "a decoder ran past --file-timeout on the file (default 30 s + 1 s per million pixels) and was killed"),
        Entry(
            .decodeOutOfMemory, .error, .decode, .failsConversion,
            "a decoder ran out of its worker's address-space cap (4 × the memory --jobs plans per job) on the file"),
        Entry(
            .conformanceHdlrFields, .warning, .conformance, .informationOnly,
            "meta's hdlr has a non-zero pre_defined or reserved field, or a name without its terminating NUL (ISO/IEC 14496-12 §8.4.3.1); error when a conversion introduced it"
        ),
        Entry(
            .conformanceIpmaDuplicate, .warning, .conformance, .informationOnly,
            "iprp holds two ipma boxes with the same version and flags (ISO/IEC 14496-12 §8.11.14.1); error when a conversion introduced it"
        ),
        Entry(
            .conformanceLselNotEssential, .warning, .conformance, .informationOnly,
            "an item's lsel (layer selector) is not marked essential (HEIF ISO/IEC 23008-12 §6.5.11.1); error when a conversion introduced it"
        ),
        Entry(
            .conformanceClliInvalid, .warning, .conformance, .informationOnly,
            "a clli box is not 12 bytes or not inside ipco (MIAF ISO/IEC 23000-22 §7.4.4.2.2); error when a conversion introduced it"
        ),
        Entry(
            .conformanceMdcvInvalid, .warning, .conformance, .informationOnly,
            "an mdcv box is not 32 bytes or not inside ipco (MIAF ISO/IEC 23000-22 §7.4.4.3.2); error when a conversion introduced it"
        ),
        Entry(
            .conformanceGridLimit, .warning, .conformance, .informationOnly,
            "in a file with a MIAF profile brand, a primary grid or overlay over 128 000 000 pixels has no alternative or thumbnail within that count, or one more than 200× smaller than the next larger (MIAF ISO/IEC 23000-22 §8.4); error when a conversion introduced it"
        ),
        Entry(
            .conformanceProfileMiAB, .warning, .conformance, .informationOnly,
            "the file claims MiAB but an AVC item is above High profile or level 5.2 (MIAF ISO/IEC 23000-22 §A.6); error when a conversion introduced it"
        ),
        Entry(
            .conformanceMiPrBoxOrder, .warning, .conformance, .informationOnly,
            "the file claims MiPr but its top-level boxes are not ftyp, [fidx,] meta, [one free,] mdat (MIAF ISO/IEC 23000-22 §10.2); error when a conversion introduced it"
        ),
        Entry(
            .conformanceMiPrThumbnail, .warning, .conformance, .informationOnly,
            "the file claims MiPr but the primary has no thumbnail, or a thumbnail's coded data does not precede the primary's (MIAF ISO/IEC 23000-22 §10.2); error when a conversion introduced it"
        ),
        Entry(
            .conformanceMiPrEarlyData, .warning, .conformance, .informationOnly,
            "the file claims MiPr but neither a thumbnail nor the primary ends within the first 128 000 bytes (MIAF ISO/IEC 23000-22 §10.2); error when a conversion introduced it"
        ),
    ]

    /// Old spellings of renamed codes (report schema 3 and earlier), accepted in policies and baselines for one
    /// report-schema version (docs/report-schema.md lists them).
    public static let aliases: [String: FindingCode] = [
        "container.box.invalidSize": .containerBoxInvalidSize,
        "container.file.trailingBytes": .containerFileTrailingBytes,
        "container.hdlr.notPict": .containerHdlrNotPict,
        "container.item.duplicateID": .containerItemDuplicateId,
        "container.item.noLocation": .containerItemNoLocation,
        "container.iloc.extentPastEOF": .containerIlocExtentPastEof,
        "container.iloc.unknownItem": .containerIlocUnknownItem,
        "container.iref.missingItem": .containerIrefMissingItem,
        "container.iref.dimgDuplicate": .containerIrefDimgDuplicate,
        "container.iref.cdscMultiTarget": .containerIrefCdscMultiTarget,
        "container.iref.auxlMultiTarget": .containerIrefAuxlMultiTarget,
        "container.ipma.indexOutOfRange": .containerIpmaIndexOutOfRange,
        "container.ipma.unknownItem": .containerIpmaUnknownItem,
        "container.ipma.duplicateItem": .containerIpmaDuplicateItem,
        "container.property.notEssential": .containerPropertyNotEssential,
        "container.property.transformBeforeIspe": .containerPropertyTransformBeforeIspe,
        "container.tmap.brandWithoutItem": .containerTmapBrandWithoutItem,
        "container.tmap.itemWithoutBrand": .containerTmapItemWithoutBrand,
        "container.exif.badOffset": .containerExifBadOffset,
    ]
}

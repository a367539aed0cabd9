import Findings

/// Every finding code the container layer emits, with its severity, in one table.
///
/// Codes are stable identifiers that tests, baselines and reports key on; a code is never renamed.
public enum FindingCode {
    /// (code, severity, what it means). The order is the documentation order.
    public static let all: [(code: String, severity: Severity, meaning: String)] = [
        (
            "box.truncated", .error,
            "a box's declared size runs past its parent or the end of the file (offset of the box)"
        ),
        ("box.invalidSize", .error, "a box size smaller than its header, or a header cut short"),
        ("box.malformed", .error, "a box's fields run past its end or hold impossible values (offset of the box)"),
        ("file.trailingBytes", .warning, "bytes after the last box that do not form a box"),
        ("ftyp.missing", .error, "no ftyp box at the start of the file"),
        ("brand.mif1.missing", .warning, "ftyp lists no mif1 brand (ISO/IEC 23008-12 §10.2.1)"),
        ("meta.missing", .error, "no top-level meta box"),
        ("meta.duplicate", .warning, "more than one top-level meta box; only the first is read"),
        ("hdlr.notPict", .error, "the meta handler is missing or is not 'pict'"),
        ("box.duplicate", .error, "a box that may appear once in meta appears again; only the first is read"),
        ("pitm.missing", .error, "no pitm: the file has no primary item"),
        ("pitm.dangling", .error, "pitm names an item that does not exist"),
        ("pitm.hidden", .error, "the primary item is hidden"),
        ("iinf.missing", .error, "no iinf box"),
        ("item.duplicateID", .error, "two infe entries share one item id"),
        ("item.noLocation", .error, "an image or metadata item has no iloc entry"),
        ("ispe.missing", .error, "an image item has no ispe property (ISO/IEC 23008-12 §6.5.3.1)"),
        (
            "iloc.extentPastEOF", .error,
            "an iloc extent ends past the end of the file or idat (offset where the extent data starts, which may itself lie past the end)"
        ),
        ("iloc.unsupported", .warning, "an iloc entry uses construction method 2 or an external data reference"),
        ("iloc.unknownItem", .warning, "an iloc entry for an item that iinf does not list"),
        ("iref.missingItem", .error, "a reference from or to an item id that does not exist"),
        ("iref.dimgDuplicate", .error, "more than one dimg reference box from one item (ISO/IEC 23008-12 §6.6.1)"),
        (
            "iref.cdscMultiTarget", .warning,
            "a cdsc reference with several targets: valid, unreadable for libheif < 1.18"
        ),
        (
            "iref.auxlMultiTarget", .warning,
            "an auxl reference with several targets: valid, unreadable for libheif < 1.18"
        ),
        ("ipma.indexOutOfRange", .error, "a property association points past the end of ipco"),
        ("ipma.unknownItem", .warning, "a property association for an item that iinf does not list"),
        ("ipma.duplicateItem", .error, "an item has more than one ipma entry"),
        ("property.malformed", .warning, "a property box whose fields cannot be read"),
        ("property.notEssential", .warning, "a transformative property (irot, imir, clap) not marked essential"),
        ("property.transformBeforeIspe", .warning, "a transformative property is associated before ispe"),
        ("grid.invalid", .error, "a grid item whose ImageGrid payload or dimg tile count is wrong"),
        ("tmap.brandWithoutItem", .error, "ftyp lists the tmap brand but there is no tmap item"),
        ("tmap.itemWithoutBrand", .warning, "a tmap item but no tmap brand in ftyp"),
        ("tmap.inputs", .error, "a tmap item without exactly two distinct existing dimg inputs [base, gain map]"),
        ("altr.order", .warning, "no altr group lists [tmap, base] in that order, so readers ignore the gain map"),
        ("exif.badOffset", .warning, "an Exif item whose 4-byte TIFF header offset does not lead to a TIFF header"),
        ("limits.exceeded", .error, "a parser limit was reached; the rest of that structure was not read"),
    ]

    /// The severity of `code`, or `.error` for an unknown code.
    public static func severity(of code: String) -> Severity {
        all.first { $0.code == code }?.severity ?? .error
    }

    /// A container finding for `code`, with the table's severity and the byte offset at fault as its evidence.
    static func finding(_ code: String, _ message: String, offset: Int?) -> Finding {
        Finding(code: code, severity: severity(of: code), message: message, evidence: Evidence(offset: offset))
    }
}

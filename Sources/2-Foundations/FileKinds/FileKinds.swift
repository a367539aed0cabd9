/// What a file is, by its extension, decided in one place: a RAW the converter reads (and `convert` discovers), an
/// HEIF or other rendered input, an output the auditor reads (and which formats `--formats` names), the sidecar. A
/// leaf: the converter, the auditor, the batch's discovery, the sidecar rules and `inspect` all ask here.
public enum FileKind: String, Sendable, CaseIterable {
    case raw, heif, avif, jpeg, sidecar, otherRendered
}

public enum FileKinds {
    /// RAWs LibRaw reads.
    public static let raw: Set<String> = [
        "dng", "cr2", "cr3", "crw", "nef", "nrw", "arw", "srf", "sr2", "raf", "orf", "rw2", "pef", "srw", "x3f",
        "mrw", "iiq", "3fr", "erf", "kdc", "dcr", "mos", "rwl", "raw",
    ]
    /// The HEIF family.
    public static let heif: Set<String> = ["heic", "heif", "hif"]
    public static let avif: Set<String> = ["avif"]
    public static let jpeg: Set<String> = ["jpg", "jpeg"]
    /// Rendered formats Readback recognises but neither converts nor audits.
    public static let otherRendered: Set<String> = ["png", "tif", "tiff", "webp"]
    /// The sidecar's extension (`IMG_1.CR2.xmp` or `IMG_1.xmp`, either case).
    public static let sidecar = "xmp"

    /// The output formats `--formats` names, and the extensions each stands for.
    public static let outputFormats: [String: Set<String>] = [
        "heic": heif, "heif": heif, "avif": avif, "jpeg": jpeg, "jpg": jpeg,
    ]
    /// What a folder of outputs is scanned for by default: the HEIF family and AVIF (a folder's JPEGs may be
    /// sources). A file named alone may be any output format.
    public static let folderOutputs: Set<String> = heif.union(avif)
    public static let anyOutput: Set<String> = heif.union(avif).union(jpeg)

    /// The kind of a file with extension `ext` (any case), nil for one Readback does not know.
    public static func kind(ofExtension ext: String) -> FileKind? {
        let e = ext.lowercased()
        if raw.contains(e) { return .raw }
        if heif.contains(e) { return .heif }
        if avif.contains(e) { return .avif }
        if jpeg.contains(e) { return .jpeg }
        if e == sidecar { return .sidecar }
        return otherRendered.contains(e) ? .otherRendered : nil
    }
}

import Foundation

/// HEVC scaling lists that x265 takes from a file (`scaling-list=FILE`, in the HM reference encoder's format), named
/// so that encoder settings stay data: an x265 `scaling-list` value from `named` is replaced by such a file's path
/// when the encoder is set up (`HeifEncoder`); `off`, `default` and a path pass through to x265 unchanged.
///
/// HEVC's default lists (H.265 §7.4.5, Tables 7-5 and 7-6) weight the quantisation of 8×8 and larger transforms by
/// frequency (the highest up to 7× coarser than the lowest) and leave 4×4 transforms flat. `default-4x4` is those
/// lists with the 4×4 intra luma list weighted too: entry (v, u) is the default 8×8 intra entry (2v+1, 2u+1), whose
/// frequency is half a 4×4 step above the 4×4 coefficient's own (entry (2v, 2u) would be the same frequency; it
/// measured weaker), so that detail an encoder codes in 4×4 transforms (8×8 coding units split in four) is
/// quantised about as the same detail in 8×8 ones. Chroma 4×4 and inter lists stay the standard's defaults.
/// docs/quality-ladder.md "Small: the 4×4 luma list weighted too".
public enum X265ScalingLists {
    /// The named sets a `scaling-list` value may give, and their file contents.
    public static let named: [String: String] = ["default-4x4": text(weightedLuma4x4: true)]

    /// HEVC's default 8×8 intra list (H.265 Table 7-6, sizeId 1, matrixId 0–2; the table gives it in up-right
    /// diagonal scan order) as the matrix, in raster order: row v is the vertical frequency, column u the horizontal
    /// one. 16 is a flat step.
    static let intra8x8: [Int] = [
        16, 16, 16, 16, 17, 18, 21, 24,
        16, 16, 16, 16, 17, 19, 22, 25,
        16, 16, 17, 18, 20, 22, 25, 29,
        16, 16, 18, 21, 24, 27, 31, 36,
        17, 17, 20, 24, 30, 35, 41, 47,
        18, 19, 22, 27, 35, 44, 54, 65,
        21, 22, 25, 31, 41, 54, 70, 88,
        24, 25, 29, 36, 47, 65, 88, 115,
    ]

    /// HEVC's default 8×8 inter list (H.265 Table 7-6, matrixId 3–5) as the matrix, raster order.
    static let inter8x8: [Int] = [
        16, 16, 16, 16, 17, 18, 20, 24,
        16, 16, 16, 17, 18, 20, 24, 25,
        16, 16, 17, 18, 20, 24, 25, 28,
        16, 17, 18, 20, 24, 25, 28, 33,
        17, 18, 20, 24, 25, 28, 33, 41,
        18, 20, 24, 25, 28, 33, 41, 54,
        20, 24, 25, 28, 33, 41, 54, 71,
        24, 25, 28, 33, 41, 54, 71, 91,
    ]

    /// The weighted 4×4 intra luma list: the default 8×8 intra entries at odd rows and columns, raster order.
    static var weightedIntra4x4: [Int] {
        (0..<16).map { intra8x8[(2 * ($0 / 4) + 1) * 8 + 2 * ($0 % 4) + 1] }
    }

    /// The lists in HM's file format, which x265 3.5 parses (`ScalingList::parseScalingList`): each list's name,
    /// ` =`, then its entries row by row; 16×16 and 32×32 lists are the 8×8 ones (the decoder upsamples them, as
    /// for the defaults) with a DC entry of 16. With `weightedLuma4x4` false this is HEVC's default set exactly.
    static func text(weightedLuma4x4: Bool) -> String {
        func list(_ name: String, _ values: [Int], side: Int) -> String {
            let rows = stride(from: 0, to: values.count, by: side).map {
                values[$0..<($0 + side)].map(String.init).joined(separator: ",") + ",\n"
            }
            return "\(name) =\n" + rows.joined()
        }
        let flat = [Int](repeating: 16, count: 16)
        var out = ""
        for (kind, luma4x4) in [("INTRA", weightedLuma4x4 ? weightedIntra4x4 : flat), ("INTER", flat)] {
            for plane in ["LUMA", "CHROMAU", "CHROMAV"] {
                out += list("\(kind)4X4_\(plane)", plane == "LUMA" ? luma4x4 : flat, side: 4)
            }
        }
        for size in ["8X8", "16X16", "32X32"] {
            for (kind, values) in [("INTRA", intra8x8), ("INTER", inter8x8)] {
                for plane in ["LUMA", "CHROMAU", "CHROMAV"] {
                    out += list("\(kind)\(size)_\(plane)", values, side: 8)
                    if size != "8X8" { out += "\(kind)\(size)_\(plane)_DC =\n16\n" }
                }
            }
        }
        return out
    }

    /// A path x265 can open for the named set `name`: a temporary file without a name (or unlinked at once), written
    /// once per process, kept open (close-on-exec) for the process's life and named through `/proc/self/fd`, so that
    /// no file outlives the process, however it ends.
    /// - Throws: `HeifError` when `name` is not a named set or the file cannot be made.
    public static func path(for name: String) throws(HeifError) -> String {
        guard let text = named[name] else {
            throw HeifError(operation: "scaling lists", message: "no scaling-list set named '\(name)'")
        }
        return try files.path(name, text: text)
    }

    /// The files made so far, one per named set.
    private static let files = NamelessFiles(operation: "scaling lists")
}

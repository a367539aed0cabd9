import Foundation
import TIFFLayout

/// The DNG opcode lists of a file's raw image (DNG 1.4 §6 "Opcode List Processing"): OpcodeList1 (applied to the
/// raw data as read), OpcodeList2 (after linearisation) and OpcodeList3 (after demosaicing).
///
/// LibRaw 0.20 applies one of them only: the MapPolynomial opcodes of OpcodeList2, and only in its lossy-JPEG loader
/// (`lossy_dng_load_raw`). The lossless loader copies the codes as they are, so a DNG whose OpcodeList2 maps 8-bit
/// codes back to linear light (the Adobe DNG SDK's 1.7 samples) renders several stops too bright and magenta.
/// `LibRawDecoder` applies those polynomials itself and refuses a DNG with any other opcode the spec says a reader
/// must not ignore (flag bit 0, "optional", clear).
public struct DNGOpcode: Sendable, Equatable {
    /// Which list (1, 2 or 3).
    public var list: Int
    /// The opcode ID (DNG 1.4 Table 8 and later: 1 WarpRectilinear … 8 MapPolynomial, 9 GainMap, …).
    public var id: UInt32
    public var flags: UInt32
    /// The parameters, big-endian as stored.
    public var parameters: [UInt8]

    /// Flag bit 0: a reader may skip the opcode.
    public var isOptional: Bool { flags & 1 != 0 }

    /// The opcode's name in the DNG specification.
    public var name: String {
        let names = [
            1: "WarpRectilinear", 2: "WarpFisheye", 3: "FixVignetteRadial", 4: "FixBadPixelsConstant",
            5: "FixBadPixelsList", 6: "TrimBounds", 7: "MapTable", 8: "MapPolynomial", 9: "GainMap",
            10: "DeltaPerRow", 11: "DeltaPerColumn", 12: "ScalePerRow", 13: "ScalePerColumn", 14: "WarpRectilinear2",
        ]
        return names[Int(id)] ?? "opcode \(id)"
    }

    /// A MapPolynomial's parameters (DNG 1.4 §6 "MapPolynomial"), nil for another opcode or short parameters.
    public var mapPolynomial: MapPolynomial? {
        guard id == 8, parameters.count >= 40 else { return nil }
        let u = (0..<9).map { DNGOpcodeReader.u32(parameters, 4 * $0) }
        let degree = Int(u[8])
        guard degree <= 8, parameters.count >= 36 + 8 * (degree + 1) else { return nil }
        let c = (0...degree).map { Double(bitPattern: DNGOpcodeReader.u64(parameters, 36 + 8 * $0)) }
        // A NaN or infinite coefficient is no polynomial (a fuzzer's find: it reached UInt16(NaN)).
        guard c.allSatisfy(\.isFinite) else { return nil }
        return MapPolynomial(
            top: Int(u[0]), left: Int(u[1]), bottom: Int(u[2]), right: Int(u[3]), plane: Int(u[4]), planes: Int(u[5]),
            rowPitch: Int(u[6]), colPitch: Int(u[7]), coefficients: c)
    }
}

/// MapPolynomial: within an area and a range of planes, every value x (0…1) becomes Σ cₖ·xᵏ, clipped to 0…1.
public struct MapPolynomial: Sendable, Equatable {
    public var top: Int, left: Int, bottom: Int, right: Int
    public var plane: Int, planes: Int
    public var rowPitch: Int, colPitch: Int
    public var coefficients: [Double]

    /// The polynomial at `x`, clipped to 0…1 (0 where huge coefficients meet as ∞ − ∞).
    public func value(_ x: Double) -> Double {
        var v = 0.0
        for c in coefficients.reversed() { v = v * x + c }
        return v.isNaN ? 0 : min(max(v, 0), 1)
    }
}

/// Reads the opcode lists of a DNG's raw IFD with a bounded TIFF walk (IFD0, its SubIFDs and the IFD chain).
public enum DNGOpcodeReader {
    /// Why the lists could not be read.
    public struct Unreadable: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// The opcodes of the raw IFD (NewSubfileType 0, the largest if several), in list order; empty when it has none.
    /// - Throws: `Unreadable` when a list is present but malformed.
    public static func opcodes(path: String) throws(Unreadable) -> [DNGOpcode] {
        // Mapped, not read: only the IFDs and the lists are touched.
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else {
            throw Unreadable(description: "cannot read")
        }
        return try opcodes(data)
    }

    /// The opcodes of the raw IFD of the DNG in `d`, read with the bounded TIFF walk (`TIFFLayout`).
    /// - Throws: `Unreadable` when a list is present but malformed.
    public static func opcodes(_ d: Data) throws(Unreadable) -> [DNGOpcode] {
        guard let layout = try? TIFFLayout(d) else { return [] }
        var raw: (area: Int, lists: [(list: Int, entry: TIFFLayout.Entry)])? = nil
        for dir in layout.directories where (layout.integer(254, in: dir) ?? 0) == 0 {
            let (w, h) = (layout.integer(256, in: dir) ?? 0, layout.integer(257, in: dir) ?? 0)
            let (area, overflow) = w.multipliedReportingOverflow(by: h)
            guard !overflow, area >= (raw?.area ?? -1) else { continue }
            let lists = [(UInt16(0xC740), 1), (0xC741, 2), (0xC74E, 3)].compactMap { tag, list in
                dir[tag].map { (list: list, entry: $0) }
            }
            raw = (area, lists)
        }
        var out: [DNGOpcode] = []
        for (list, e) in raw?.lists ?? [] {
            guard e.count > 4, let bytes = layout.valueBytes(e) else {
                throw Unreadable(description: "opcode list \(e.tag) lies outside the file")
            }
            out += try parse([UInt8](bytes), list: list)
        }
        return out
    }

    /// Parses one opcode list (big-endian: count, then id, version, flags, size and parameters per opcode).
    /// - Throws: `Unreadable` when a size runs past the list.
    public static func parse(_ b: [UInt8], list: Int) throws(Unreadable) -> [DNGOpcode] {
        guard b.count >= 4 else { throw Unreadable(description: "OpcodeList\(list) is shorter than its count") }
        let count = Int(u32(b, 0))
        var at = 4
        var out: [DNGOpcode] = []
        for _ in 0..<min(count, 1000) {
            guard at + 16 <= b.count else { throw Unreadable(description: "OpcodeList\(list) ends inside an opcode") }
            let size = Int(u32(b, at + 12))
            guard size >= 0, at + 16 + size <= b.count else {
                throw Unreadable(description: "OpcodeList\(list): an opcode's parameters run past the list")
            }
            out.append(
                DNGOpcode(
                    list: list, id: u32(b, at), flags: u32(b, at + 8),
                    parameters: Array(b[(at + 16)..<(at + 16 + size)])))
            at += 16 + size
        }
        return out
    }

    static func u32(_ b: [UInt8], _ o: Int) -> UInt32 {
        UInt32(b[o]) << 24 | UInt32(b[o + 1]) << 16 | UInt32(b[o + 2]) << 8 | UInt32(b[o + 3])
    }

    static func u64(_ b: [UInt8], _ o: Int) -> UInt64 { UInt64(u32(b, o)) << 32 | UInt64(u32(b, o + 4)) }
}

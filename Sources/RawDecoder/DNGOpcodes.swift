import Foundation

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

    /// The polynomial at `x`, clipped to 0…1.
    public func value(_ x: Double) -> Double {
        var v = 0.0
        for c in coefficients.reversed() { v = v * x + c }
        return min(max(v, 0), 1)
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

    /// The opcodes of the raw IFD of the DNG in `b` (indexed from its `startIndex`).
    /// - Throws: `Unreadable` when a list is present but malformed.
    public static func opcodes(_ d: Data) throws(Unreadable) -> [DNGOpcode] {
        let b = d.count == 0 || d.startIndex == 0 ? d : Data(d)
        guard b.count >= 8, (b[0] == 0x49 && b[1] == 0x49) || (b[0] == 0x4D && b[1] == 0x4D) else { return [] }
        let little = b[0] == 0x49
        func u16(_ o: Int) -> Int? {
            guard o >= 0, o + 2 <= b.count else { return nil }
            return little ? Int(b[o]) | Int(b[o + 1]) << 8 : Int(b[o]) << 8 | Int(b[o + 1])
        }
        func u32(_ o: Int) -> Int? {
            guard let x = u16(o), let y = u16(o + 2) else { return nil }
            return little ? x | y << 16 : x << 16 | y
        }
        // Each IFD: its NewSubfileType, pixel count and opcode-list byte ranges.
        var raw: (area: Int, lists: [(Int, Range<Int>)])? = nil
        var queue = [u32(4) ?? 0]
        var seen = Set<Int>()
        while let o = queue.popLast() {
            guard o > 0, seen.count < 64, seen.insert(o).inserted, let n = u16(o), n < 4096 else { continue }
            var subfile = 0
            var area = 0
            var width = 0
            var lists: [(Int, Range<Int>)] = []
            for i in 0..<n {
                let e = o + 2 + 12 * i
                guard let tag = u16(e), let type = u16(e + 2), let count = u32(e + 4) else { break }
                let value = type == 3 ? u16(e + 8) ?? 0 : u32(e + 8) ?? 0
                switch tag {
                case 254: subfile = value
                case 256: width = value
                case 257: area = width * value
                case 330:
                    let at = count == 1 ? e + 8 : value
                    for k in 0..<min(count, 64) { if let s = u32(at + 4 * k) { queue.append(s) } }
                case 0xC740, 0xC741, 0xC74E:
                    guard count > 4, value >= 0, value + count <= b.count else {
                        throw Unreadable(description: "opcode list \(tag) lies outside the file")
                    }
                    lists.append((tag == 0xC740 ? 1 : tag == 0xC741 ? 2 : 3, value..<(value + count)))
                default: break
                }
            }
            if subfile == 0 && area >= (raw?.area ?? -1) { raw = (area, lists) }
            if let next = u32(o + 2 + 12 * n) { queue.insert(next, at: 0) }
        }
        var out: [DNGOpcode] = []
        for (list, range) in raw?.lists ?? [] { out += try parse([UInt8](b[range]), list: list) }
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

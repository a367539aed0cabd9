import Foundation
import TIFFLayout

/// One marker segment of a JPEG image, where it sits in the file and what it carries.
public struct JPEGSegment: Sendable, Hashable {
    /// The marker's second byte (0xE1 for APP1, 0xDA for SOS…).
    public var marker: UInt8
    /// File offset of the marker's 0xFF.
    public var offset: Int
    /// The payload (after the two length bytes) as a range of the file; empty for markers without a length.
    public var payload: Range<Int>
    /// What the segment is: "APP1 Exif", "APP1 XMP", "APP2 ICC", "APP2 MPF", "APP2 ISO 21496-1", "SOF0"…
    public var label: String
}

/// The layout of one JPEG image (a primary, or an image an MPF index points to): its segments up to the first
/// scan, its frame size and where its bytes end.
public struct JPEGImageLayout: Sendable, Hashable {
    /// File offset of the image's SOI.
    public var start: Int
    /// The segments from SOI to the first SOS, in file order (the SOS included).
    public var segments: [JPEGSegment]
    /// Frame width and height and component count from the first SOFn.
    public var width: Int?
    public var height: Int?
    public var components: Int?
    /// File offset just past the EOI marker; nil when the image stops before its EOI (truncated).
    public var end: Int?
    /// True when a scan (SOS) starts.
    public var hasScan: Bool { segments.contains { $0.marker == 0xDA } }

    /// The payloads of segments with `label`.
    public func payloads(_ label: String, in b: [UInt8]) -> [ArraySlice<UInt8>] {
        segments.filter { $0.label == label }.map { b[$0.payload] }
    }
}

/// A bounded, never-trapping JPEG marker walker.
public enum JPEGScanner {
    static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    static let extendedXMPSignature = Array("http://ns.adobe.com/xmp/extension/".utf8) + [0]
    static let exifSignature = Array("Exif".utf8) + [0, 0]
    static let iccSignature = Array("ICC_PROFILE".utf8) + [0]
    static let mpfSignature = Array("MPF".utf8) + [0]
    /// ISO 21496-1 in JPEG: an APP2 segment starting with this URN, then the metadata.
    public static let isoSignature = Array("urn:iso:std:iso:ts:21496:-1".utf8) + [0]

    /// True when `b` has a JPEG SOI at `offset`.
    public static func isSOI(_ b: [UInt8], at offset: Int) -> Bool {
        offset >= 0 && offset + 2 <= b.count && b[offset] == 0xFF && b[offset + 1] == 0xD8
    }

    /// The layout of the image whose SOI is at `start`; nil when there is no SOI there.
    /// - Parameter toEOI: false = stop at the first scan (no `end`), without walking the entropy-coded data.
    public static func image(_ b: [UInt8], at start: Int = 0, toEOI: Bool = true) -> JPEGImageLayout? {
        guard isSOI(b, at: start) else { return nil }
        var layout = JPEGImageLayout(start: start, segments: [])
        var i = start + 2
        var scanned = false
        while i + 1 < b.count {
            guard b[i] == 0xFF else {
                // Entropy-coded data after a scan: find the next marker that is neither stuffing nor a restart.
                guard scanned else { return layout }
                i += 1
                continue
            }
            let m = b[i + 1]
            if m == 0xFF {  // fill byte
                i += 1
                continue
            }
            if m == 0x00 || (0xD0...0xD7).contains(m) {
                i += 2
                continue
            }
            if m == 0xD9 {
                layout.end = i + 2
                return layout
            }
            if m == 0x01 {
                i += 2
                continue
            }
            guard i + 4 <= b.count else { return layout }
            let len = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard len >= 2 else { return layout }
            let payload = (i + 4)..<min(b.count, i + 2 + len)
            if !scanned {
                layout.segments.append(
                    JPEGSegment(marker: m, offset: i, payload: payload, label: label(m, b[payload])))
            }
            if (0xC0...0xCF).contains(m), m != 0xC4, m != 0xC8, m != 0xCC, layout.width == nil, payload.count >= 6 {
                let p = payload.lowerBound
                layout.height = Int(b[p + 1]) << 8 | Int(b[p + 2])
                layout.width = Int(b[p + 3]) << 8 | Int(b[p + 4])
                layout.components = Int(b[p + 5])
            }
            if m == 0xDA {
                scanned = true
                if !toEOI { return layout }
            }
            i += 2 + len
        }
        return layout
    }

    /// A person's name for a segment: its marker and, for APPn, the signature it starts with.
    static func label(_ m: UInt8, _ p: ArraySlice<UInt8>) -> String {
        switch m {
        case 0xE1 where p.starts(with: exifSignature): return "APP1 Exif"
        case 0xE1 where p.starts(with: xmpSignature): return "APP1 XMP"
        case 0xE1 where p.starts(with: extendedXMPSignature): return "APP1 extended XMP"
        case 0xE2 where p.starts(with: iccSignature): return "APP2 ICC"
        case 0xE2 where p.starts(with: mpfSignature): return "APP2 MPF"
        case 0xE2 where p.starts(with: isoSignature): return "APP2 ISO 21496-1"
        case 0xE0...0xEF: return "APP\(m - 0xE0)"
        case 0xDA: return "SOS"
        case 0xDB: return "DQT"
        case 0xC4: return "DHT"
        case 0xDD: return "DRI"
        case 0xFE: return "COM"
        case 0xC0...0xCF: return "SOF\(m - 0xC0)"
        default: return "marker FF\(String(m, radix: 16, uppercase: true))"
        }
    }

    /// The XMP packet of an image (the standard APP1 XMP, without its signature).
    public static func xmp(_ l: JPEGImageLayout, _ b: [UInt8]) -> [UInt8]? {
        l.payloads("APP1 XMP", in: b).first.map { Array($0.dropFirst(xmpSignature.count)) }
    }

    /// The Exif of an image ("Exif\0\0" + TIFF).
    public static func exif(_ l: JPEGImageLayout, _ b: [UInt8]) -> [UInt8]? {
        l.payloads("APP1 Exif", in: b).first.map { Array($0) }
    }

    /// The ISO 21496-1 payload of an image (after the URN), with its file offset.
    public static func iso(_ l: JPEGImageLayout, _ b: [UInt8]) -> (bytes: [UInt8], offset: Int)? {
        guard let s = l.segments.first(where: { $0.label == "APP2 ISO 21496-1" }) else { return nil }
        let from = s.payload.lowerBound + isoSignature.count
        return (Array(b[min(from, s.payload.upperBound)..<s.payload.upperBound]), from)
    }
}

/// One image of a CIPA DC-007 Multi-Picture Format index.
public struct MPFEntry: Sendable, Hashable {
    /// The 4-byte individual image attribute (flags, format, type).
    public var attribute: UInt32
    /// The image's size in bytes.
    public var size: Int
    /// The image's offset as stored: relative to the MPF TIFF header; 0 for the first image.
    public var storedOffset: Int
    /// The image's offset in the file (the first image starts at the file's SOI).
    public var fileOffset: Int
    /// The type code (low 24 bits): 0x030000 baseline primary, 0x010001 large thumbnail, 0x000000 undefined…
    public var type: UInt32 { attribute & 0x00FF_FFFF }
}

/// The MPF index (APP2 "MPF\0", a TIFF structure whose offsets count from its own header).
public struct MPFIndex: Sendable, Hashable {
    /// File offset of the MPF TIFF header (the base of the entries' offsets).
    public var base: Int
    /// The file offset of the MPF segment's marker.
    public var segmentOffset: Int
    /// True for a big-endian ("MM") index.
    public var bigEndian: Bool
    /// The entries, in index order.
    public var entries: [MPFEntry]

    /// Parses the MPF APP2 segment of `layout`; nil when there is none or it is unreadable.
    public static func parse(_ layout: JPEGImageLayout, _ b: [UInt8]) -> MPFIndex? {
        guard let s = layout.segments.first(where: { $0.label == "APP2 MPF" }) else { return nil }
        let base = s.payload.lowerBound + 4
        let end = s.payload.upperBound
        // The index is a TIFF structure whose offsets count from its own header (CIPA DC-007 §5.2).
        guard base + 8 <= end, let tiff = try? TIFFLayout(Data(b[base..<end])), let ifd = tiff.directories.first
        else { return nil }
        var entries: [MPFEntry] = []
        for e in ifd.entries where e.tag == 0xB002 {
            for j in 0..<min(e.count / 16, 64) {
                let o = e.valueOffset + 16 * j
                guard let attr = tiff.u32(o), let size = tiff.u32(o + 4), let off = tiff.u32(o + 8) else { break }
                entries.append(
                    MPFEntry(
                        attribute: attr, size: Int(size), storedOffset: Int(off),
                        fileOffset: off == 0 ? layout.start : base + Int(off)))
            }
        }
        let big = tiff.order == .big
        return MPFIndex(base: base, segmentOffset: s.offset, bigEndian: big, entries: entries)
    }
}

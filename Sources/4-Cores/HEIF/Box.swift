import Findings

/// One box of the file's box tree (ISO/IEC 14496-12 §4.2): where it is, how big, and its children.
///
/// The body is not copied: read it from the file's bytes through `bodyRange`. Unknown boxes are kept as they are
/// (their bytes stay in the file), so writing the file back gives the same bytes.
public struct Box: Sendable, Hashable {
    /// The box type (`uuid` boxes keep their 16-byte user type in `userType`).
    public let type: FourCC
    /// Byte offset of the box header in the file.
    public let offset: Int
    /// Total size in bytes, header included, as far as it lies within its parent (see `truncated`).
    public let size: Int
    /// Header length: 8, 16 with `largesize`, plus 16 for `uuid`.
    public let headerSize: Int
    /// True when the header said size 0 ("extends to the end of the file").
    public let extendsToEnd: Bool
    /// True when the declared size ran past the parent (or the file); `size` is then clipped.
    public let truncated: Bool
    /// The extended type of a `uuid` box.
    public let userType: [UInt8]?
    /// Children, for the container boxes this parser descends into (meta, iinf, iref, iprp, ipco, grpl, dinf, …).
    public internal(set) var children: [Box]

    /// The body: from after the header to the end of the box.
    public var bodyRange: Range<Int> { (offset + headerSize)..<(offset + size) }
    /// The whole box.
    public var range: Range<Int> { offset..<(offset + size) }

    /// The first child of `type`.
    public func child(_ type: FourCC) -> Box? { children.first { $0.type == type } }
}

/// Reads box trees with limits, turning every problem into a finding.
struct BoxTreeReader {
    let bytes: [UInt8]
    let limits: Limits
    var findings: [Finding] = []
    var boxCount = 0
    var limitHit = false

    init(bytes: [UInt8], limits: Limits) {
        self.bytes = bytes
        self.limits = limits
    }

    mutating func add(_ code: FindingCode, _ message: String, offset: Int?) {
        findings.append(code.finding(message, evidence: Evidence(offset: offset)))
    }

    mutating func limit(_ what: String, offset: Int?) {
        if !limitHit {
            limitHit = true
        }
        add(.containerLimitsExceeded, "\(what) limit reached", offset: offset)
    }

    /// Reads the boxes in `start..<end` at `depth`. Stops at the first header that cannot be read.
    mutating func readBoxes(from start: Int, to end: Int, depth: Int, topLevel: Bool = false) -> [Box] {
        var out: [Box] = []
        var pos = start
        guard depth <= limits.maxDepth else {
            limit("box nesting depth (\(limits.maxDepth))", offset: start)
            return out
        }
        while pos < end {
            if boxCount >= limits.maxBoxes {
                limit("box count (\(limits.maxBoxes))", offset: pos)
                break
            }
            let avail = end - pos
            if avail < 8 {
                if topLevel {
                    add(.containerFileTrailingBytes, "\(avail) byte(s) after the last box", offset: pos)
                } else {
                    add(
                        .containerBoxInvalidSize, "\(avail) byte(s) left in the parent, too few for a box header",
                        offset: pos)
                }
                break
            }
            var r = ByteReader(bytes, from: pos, to: end)
            let size32 = r.u32()!
            let type = r.fourCC()!
            var header = 8
            var declared: UInt64 = UInt64(size32)
            var toEnd = false
            if size32 == 1 {
                guard let large = r.u64() else {
                    add(.containerBoxInvalidSize, "'\(type)' largesize header cut short", offset: pos)
                    break
                }
                declared = large
                header = 16
            } else if size32 == 0 {
                toEnd = true
                declared = UInt64(avail)
            }
            var user: [UInt8]? = nil
            if type == "uuid" {
                guard let u = r.take(16) else {
                    add(.containerBoxInvalidSize, "'uuid' header cut short", offset: pos)
                    break
                }
                user = u
                header += 16
            }
            if declared < UInt64(header) {
                add(
                    .containerBoxInvalidSize,
                    "'\(type)' declares size \(declared), smaller than its \(header)-byte header",
                    offset: pos)
                break
            }
            var size = Int(clamping: declared)
            var truncated = false
            if declared > UInt64(avail) {
                truncated = true
                size = avail
                add(
                    .containerBoxTruncated,
                    "'\(type)' declares \(declared) bytes but only \(avail) remain", offset: pos)
            }
            boxCount += 1
            var box = Box(
                type: type, offset: pos, size: size, headerSize: header, extendsToEnd: toEnd, truncated: truncated,
                userType: user, children: [])
            if let pre = childPreamble(type: type, bodyStart: pos + header, end: pos + size) {
                box.children = readBoxes(from: pos + header + pre, to: pos + size, depth: depth + 1)
            }
            out.append(box)
            pos += size
        }
        return out
    }

    /// Bytes between the header and the first child for the container boxes we descend into; `nil` for leaves.
    func childPreamble(type: FourCC, bodyStart: Int, end: Int) -> Int? {
        switch type {
        case "meta":
            // A FullBox in ISO BMFF; QuickTime's meta is a plain box: tell them apart by a child type at byte 4.
            var r = ByteReader(bytes, from: bodyStart + 4, to: end)
            if let t = r.fourCC(), t == "hdlr" { return 0 }
            return 4
        case "iinf":
            var r = ByteReader(bytes, from: bodyStart, to: end)
            guard let v = r.u8() else { return nil }
            return v == 0 ? 6 : 8
        case "iref": return 4
        case "dref": return 8
        case "iprp", "ipco", "grpl", "dinf", "moov", "trak", "mdia", "minf", "stbl", "edts", "udta", "moof", "traf",
            "mvex", "sinf", "schi", "rinf", "strk", "strd":
            return 0
        default: return nil
        }
    }
}

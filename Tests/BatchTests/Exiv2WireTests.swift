import Exiv2Bridge
import Foundation
import MetadataEntries
import TestSupport
import Testing

@testable import Isolation

/// exiv2's answers cross the worker boundary in a compact binary form (`Exiv2Wire`): every field arrives as it left,
/// and bytes that are not a whole answer are refused, never read past their end.
@Suite struct Exiv2WireTests {
    static let entries = [
        RawEntry(
            family: .exif, key: "Exif.Image.ProfileHueSatMapData1", group: "Image", ifd: "IFD0",
            tagName: "ProfileHueSatMapData1", tag: 0xC6FA, typeID: 11, count: 8100,
            raw: (0..<32400).map { UInt8(truncatingIfNeeded: $0 &* 31) }, text: "0.5 1 1 0.25", isMakerNote: false),
        RawEntry(
            family: .exif, key: "Exif.Canon.0x4001", group: "Canon", ifd: "MakerNote", tagName: "0x4001", tag: 0x4001,
            typeID: 3, count: 0, raw: [], text: "", isMakerNote: true),
        RawEntry(
            family: .iptc, key: "Iptc.Application2.Caption", group: "Application2", tagName: "Caption", tag: 120,
            typeID: 0x10000, count: 12, raw: Array("Schöne Grüße".utf8), text: "Schöne Grüße", isMakerNote: false),
        RawEntry(
            family: .xmp, key: "Xmp.dc.title", group: "dc", tagName: "title", tag: 0, typeID: 0x10006, count: 2,
            raw: Array("x-default\u{1F}日没\u{1E}fr\u{1F}Coucher".utf8), text: "lang=\"x-default\" 日没",
            isMakerNote: false),
    ]

    static let document = Exiv2Document(
        entries: entries, mimeType: "image/x-adobe-dng", warnings: ["Directory Canon has an unexpected next pointer"],
        byteOrder: "MM",
        previews: [.fields(mimeType: "image/jpeg", width: 1620, height: 1080, data: [])])

    static func decoded(_ bytes: [UInt8]) throws -> Exiv2Document {
        try bytes.withUnsafeBytes { try Exiv2Wire.decodeDocument($0) }
    }

    static func expectSame(_ a: Exiv2Document, _ b: Exiv2Document) {
        #expect(a.entries == b.entries)
        #expect(a.mimeType == b.mimeType)
        #expect(a.warnings == b.warnings)
        #expect(a.byteOrder == b.byteOrder)
        let shape = { (d: Exiv2Document) in d.previews.map { "\($0.mimeType) \($0.width)x\($0.height)" } }
        #expect(shape(a) == shape(b))
    }

    @Test func everyFieldOfADocumentArrivesAsItLeft() throws {
        Self.expectSame(try Self.decoded(Exiv2Wire.encode(Self.document)), Self.document)
        let bare = Exiv2Document(entries: [], mimeType: "", warnings: [], byteOrder: nil)
        let back = try Self.decoded(Exiv2Wire.encode(bare))
        Self.expectSame(back, bare)
        #expect(back.byteOrder == nil)
    }

    /// The worker's answer for a generated DNG is exiv2's own reading of it, entry for entry, previews included.
    @Test func aWorkersDocumentIsTheInProcessOne() throws {
        let url = Repo.root.appendingPathComponent("Corpus/dng/chart-rggb-14bit-o5.dng")
        let bytes = [UInt8](try Data(contentsOf: url))
        let pool = WorkerPool(
            WorkerPool.Config(
                executable: BuiltReadback.path, size: 1, addressSpace: 4 << 30, timeout: WorkerPool.Timeout()))
        defer { pool.shutdown() }
        let viaWorker = try WorkerDecoders(pool: pool).exiv2(
            bytes: bytes, label: url.path, previews: true, maxPreviewBytes: 64 << 20)
        let inProcess = try Exiv2.read(bytes: bytes, label: url.path, previews: true)
        #expect(viaWorker.entries.count > 100)
        Self.expectSame(viaWorker, inProcess)
        #expect(viaWorker.previews == inProcess.previews)
    }

    @Test func builtMetadataArrivesAsItLeft() throws {
        var b = BuiltMetadata()
        b.exif = ExifBlob(bytes: Array("MM\0*".utf8) + (0..<300).map { UInt8($0 % 251) }, encodingLosses: ["a", "β"])
        b.xmpError = Exiv2Error(operation: "build XMP", path: nil, message: "XMP Toolkit error 9")
        let back = try Exiv2Wire.encode(b).withUnsafeBytes { try Exiv2Wire.decodeBuilt($0) }
        #expect(back.exif?.bytes == b.exif?.bytes)
        #expect(back.exif?.encodingLosses == ["a", "β"])
        #expect(back.exifError == nil)
        #expect(back.xmp == nil)
        #expect(back.xmpError == b.xmpError)
        var other = BuiltMetadata()
        other.exifError = Exiv2Error(operation: "build Exif", path: "/a/b.dng", message: "no IFD0")
        other.xmp = Array("<x:xmpmeta/>".utf8)
        let back2 = try Exiv2Wire.encode(other).withUnsafeBytes { try Exiv2Wire.decodeBuilt($0) }
        #expect(back2.exif == nil && back2.exifError == other.exifError && back2.xmp == other.xmp)
    }

    /// Every prefix of an answer, and answers with a wrong tag, flag, family, count or trailing bytes, are refused.
    @Test func bytesThatAreNotAWholeAnswerAreRefused() {
        let whole = Exiv2Wire.encode(Self.document)
        // Every cut below the big value run, and a sample of the cuts inside it.
        let cuts = Array(0..<min(whole.count, 400)) + Array(stride(from: 400, to: whole.count, by: 997))
        for n in cuts {
            #expect(throws: WireError.self, "cut at \(n) of \(whole.count)") { try Self.decoded(Array(whole[..<n])) }
        }
        #expect(throws: WireError.self) { try Self.decoded(whole + [0]) }
        var tag = whole
        tag[0] = UInt8(ascii: "X")
        #expect(throws: WireError.self) { try Self.decoded(tag) }
        // The entry count claims 2^32 − 1 entries: refused before anything is reserved.
        let empty = Exiv2Wire.encode(Exiv2Document(entries: [], mimeType: "", warnings: [], byteOrder: nil))
        #expect(throws: WireError.self) { try Self.decoded(Array(empty.dropLast(4)) + [0xFF, 0xFF, 0xFF, 0xFF]) }
        // The byte-order flag is 0 or 1; the family byte 0, 1 or 2.
        var flag = empty
        flag[4 + 4 + 4] = 7
        #expect(throws: WireError.self) { try Self.decoded(flag) }
        let one = Exiv2Wire.encode(
            Exiv2Document(entries: [Self.entries[1]], mimeType: "", warnings: [], byteOrder: nil))
        var family = one
        family[empty.count] = 3
        #expect(throws: WireError.self) { try Self.decoded(family) }
        #expect(throws: Never.self) { try Self.decoded(one) }
    }

    /// Seeded mutations of whole answers (bytes set, 32-bit counts and lengths overwritten with extremes, ranges cut
    /// out or repeated), as a worker gone wrong could send: each is refused with a `WireError` or read as a document
    /// that encodes and reads back to itself; nothing traps, and no count is trusted beyond the bytes left.
    @Test func mutatedAnswersAreRefusedOrReadWhole() throws {
        let document = Exiv2Wire.encode(Self.document)
        var built = BuiltMetadata()
        built.exif = ExifBlob(bytes: (0..<600).map { UInt8($0 % 253) }, encodingLosses: ["lost"])
        built.xmp = Array("<x:xmpmeta/>".utf8)
        let builtBytes = Exiv2Wire.encode(built)
        var state: UInt64 = 0x5EED_0F_3A11
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(max(1, n)))
        }
        func mutate(_ whole: [UInt8]) -> [UInt8] {
            var b = whole
            for _ in 0...next(4) where b.count > 8 {
                let at = next(b.count - 4)
                switch next(4) {
                case 0: b[at] = UInt8(truncatingIfNeeded: next(256))
                case 1:
                    let v: UInt32 = [0xFFFF_FFFF, 0x7FFF_FFFF, 0x8000_0000, 0x0001_0000, UInt32(next(1 << 20))][next(5)]
                    for k in 0..<4 { b[at + k] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(k))) }
                case 2: b.removeSubrange(at..<min(b.count, at + 1 + next(64)))
                default: b.insert(contentsOf: b[at..<min(b.count, at + 1 + next(64))], at: at)
                }
            }
            return b
        }
        var (refused, read) = (0, 0)
        for round in 0..<3000 {
            let whole = round % 3 == 2 ? builtBytes : document
            let bytes = mutate(whole)
            if whole == builtBytes {
                do {
                    let b = try bytes.withUnsafeBytes { try Exiv2Wire.decodeBuilt($0) }
                    let again = try Exiv2Wire.encode(b).withUnsafeBytes { try Exiv2Wire.decodeBuilt($0) }
                    #expect(again.exif?.bytes == b.exif?.bytes && again.xmp == b.xmp, "round \(round)")
                    read += 1
                } catch is WireError { refused += 1 }
            } else {
                do {
                    let d = try Self.decoded(bytes)
                    Self.expectSame(try Self.decoded(Exiv2Wire.encode(d)), d)
                    read += 1
                } catch is WireError { refused += 1 }
            }
        }
        #expect(refused + read == 3000)
        #expect(refused > 1000 && read > 100)  // 2273 and 727 with this seed
    }
}

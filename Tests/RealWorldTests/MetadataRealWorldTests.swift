import Exiv2Bridge
import Foundation
import Metadata
import MetadataIO
import Testing

/// The independent oracle: our values for every field in our tag tables against `exiftool -j -n -G1 -a`
/// (exiftool 12.57), over the whole real-world corpus, after normalisation.
enum ExiftoolOracle {
    /// Runs one exiftool process over all files; returns "SourceFile" → tags.
    static func read(_ files: [URL]) throws -> [String: [String: Any]] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        p.arguments = ["-j", "-n", "-G1", "-a", "-q", "-q"] + files.map(\.path)
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard let array = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            throw RealWorldCorpus.Missing(what: "exiftool printed no JSON array")
        }
        var byFile: [String: [String: Any]] = [:]
        for d in array { if let f = d["SourceFile"] as? String { byFile[f] = d } }
        return byFile
    }

    /// exiftool keys ("Group:Name") that our tables define.
    static let tableKeys: Set<String> = Set((ExifTables.all + XMPTables.all).map { $0.key.description })
    static let conversions: [String: ExiftoolConversion] = Dictionary(
        (ExifTables.all + XMPTables.all).map { ($0.key.description, $0.conversion) }, uniquingKeysWith: { a, _ in a })

    /// Numbers from a JSON number or a string of numbers separated by spaces (or colons, GPSTimeStamp);
    /// exiftool's "inf"/"undef" become infinity/NaN.
    static func numbers(_ any: Any) -> [Double]? {
        if let n = any as? NSNumber { return [n.doubleValue] }
        if let s = any as? String {
            let parts = s.split(whereSeparator: { $0 == " " || $0 == ":" })
            let v = parts.compactMap { p -> Double? in
                p == "inf" ? .infinity : p == "-inf" ? -.infinity : p == "undef" ? .nan : Double(p)
            }
            return v.count == parts.count && !v.isEmpty ? v : nil
        }
        return nil
    }

    /// Offsets and pointers: exiftool reports them from the start of the file, exiv2 from the TIFF header,
    /// so they are positions, not values to compare.
    static let positionKeys: Set<String> = [
        "IFD0:ThumbnailOffset", "IFD1:ThumbnailOffset", "IFD0:StripOffsets", "IFD1:StripOffsets",
        "IFD0:TileOffsets", "IFD0:SubIFD",
        // exiftool renames IFD0's image strips by file type (PreviewImageLength in CR2, ThumbnailLength in DNG
        // and ARW, ...); they are sizes of embedded images, structure rather than metadata.
        "IFD0:StripByteCounts", "IFD0:ThumbnailLength",
    ]

    /// CRW (CIFF) has no TIFF IFDs: exiv2 maps its records into Exif tags, exiftool keeps them in CanonRaw.
    /// Our key → the exiftool key holding the same record.
    static let crwAliases: [String: String] = [
        "IFD0:Make": "CanonRaw:Make", "IFD0:Model": "CanonRaw:Model",
        "ExifIFD:DateTimeOriginal": "CanonRaw:DateTimeOriginal", "ExifIFD:ExifImageWidth": "CanonRaw:ImageWidth",
        "ExifIFD:ExifImageHeight": "CanonRaw:ImageHeight", "ExifIFD:FNumber": "Canon:FNumber",
        "IFD1:ThumbnailLength": "CanonRaw:ThumbnailImage",
    ]

    /// A warning or error that made exiftool stop reading a directory ("Bad IFD0 directory", "Error reading
    /// value for IFD0 entry 17", "File format error"); minor ones do not count.
    static func stoppedEarly(_ tags: [String: Any]) -> String? {
        for k in ["ExifTool:Error", "ExifTool:Warning"] {
            if let w = tags[k] as? String, !w.hasPrefix("[minor]"), !w.hasPrefix("[Minor]") { return w }
        }
        return nil
    }

    static func text(_ any: Any) -> String {
        if let s = any as? String { return s }
        if let a = any as? [Any] { return a.map { text($0) }.joined(separator: ", ") }
        return "\(any)"
    }

    /// True when our field equals exiftool's value after normalisation.
    static func agrees(_ field: Field, _ theirs: Any) -> Bool {
        let key = field.key.description
        let v = field.value
        // Binary: exiftool prints "(Binary data N bytes, use -b option to extract)".
        if let s = theirs as? String, s.hasPrefix("(Binary data ") {
            let n = Int(s.dropFirst(13).prefix { $0.isNumber }) ?? -1
            if case .binary(let b) = v { return b.length == n }
            if case .integers(let i) = v { return i.count == n || i == [Int64(n)] }  // a length tag
            return false
        }
        // exiftool prints "" for values it cannot convert (a 0/0 coordinate); so is ours, then.
        if let s = theirs as? String, s.isEmpty, let n = v.numbers, !n.isEmpty {
            return n.allSatisfy { !$0.isFinite }
        }
        // GPS coordinates: decimal degrees.
        if field.key.name.hasSuffix("Latitude") || field.key.name.hasSuffix("Longitude"),
            let ours = MetadataSet.degrees(v), let t = numbers(theirs)?.first
        {
            return abs(ours - t) < 1e-6
        }
        // Dates.
        if case .dateTime(let d) = v {
            return DateTimeValue(parsing: text(theirs)) == d
        }
        // Lists.
        if case .strings(let list) = v {
            if let a = theirs as? [Any] { return a.map { text($0) } == list }
            return list.count == 1 && list[0] == text(theirs)
        }
        if var ours = v.numbers {
            switch conversions[key] ?? .none {
            case .apexShutter: ours = ours.map { pow(2, -$0) }
            case .apexAperture: ours = ours.map { pow(2, $0 / 2) }
            case .none: break
            }
            guard var t = numbers(theirs) else { return false }
            if t.count == 1, t[0].isNaN, ours.allSatisfy({ !$0.isFinite }) { t = ours }
            guard t.count == ours.count else { return false }
            return zip(ours, t).allSatisfy { a, b in
                a == b || (!a.isFinite && !b.isFinite) || abs(a - b) <= 1e-6 * max(abs(a), abs(b))
            }
        }
        let ours = v.description
        if let n = theirs as? NSNumber { return Double(ours).map { $0 == n.doubleValue } ?? false }
        return MetadataValue.normalizeText(text(theirs)) == ours
    }
}

@Test func metadataAgreesWithExiftoolOnTheRealCorpus() throws {
    let files = try RealWorldCorpus.files([
        "heic", "heif", "hif", "avif", "jpg", "jpeg", "cr2", "cr3", "crw", "dng", "nef", "arw", "raf", "orf", "rw2",
        "pef", "mrw", "x3f", "iiq", "exv", "tif", "tiff",
    ])
    #expect(files.count >= 90, "corpus has \(files.count) files")
    let oracle = try ExiftoolOracle.read(files)
    var compared = 0
    var agreed = 0
    var disagreements: [String] = []
    var unverifiable: [String] = []
    var errors: [String] = []
    for url in files {
        let set: MetadataSet
        do {
            set = try MetadataReader.read(url, decoders: .inProcess)
        } catch {
            errors.append(error.description)
            continue
        }
        guard var theirs = oracle[url.path] else { continue }
        let crw = (theirs["File:FileType"] as? String) == "CRW"
        if crw {
            for (ours, their) in ExiftoolOracle.crwAliases { if let v = theirs[their] { theirs[ours] = v } }
        }
        let stopped = ExiftoolOracle.stoppedEarly(theirs)
        let ours = Dictionary(
            set.fields.filter(\.inTable).map { ($0.key.description, $0) }, uniquingKeysWith: { a, _ in a })
        let theirKeys = Set(theirs.keys).intersection(ExiftoolOracle.tableKeys)
        for key in Set(ours.keys).union(theirKeys).subtracting(ExiftoolOracle.positionKeys).sorted() {
            compared += 1
            let name = url.lastPathComponent
            switch (ours[key], theirs[key]) {
            case (let f?, let t?):
                if ExiftoolOracle.agrees(f, t) {
                    agreed += 1
                } else {
                    disagreements.append("\(name) \(key): ours \(f.value) | exiftool \(ExiftoolOracle.text(t))")
                }
            case (let f?, nil):
                if let stopped {
                    unverifiable.append("\(name) \(key): ours \(f.value) | exiftool stopped: \(stopped)")
                } else if crw {
                    unverifiable.append("\(name) \(key): ours \(f.value) | exiftool has no CIFF record for it")
                } else {
                    disagreements.append("\(name) \(key): ours \(f.value) | exiftool absent")
                }
            case (nil, let t?):
                disagreements.append("\(name) \(key): ours absent | exiftool \(ExiftoolOracle.text(t))")
            default: break
            }
        }
    }
    // Fields exiftool could not read (it stopped on a broken directory) are listed, not counted.
    compared -= unverifiable.count
    let ratio = compared == 0 ? 0 : Double(agreed) / Double(compared)
    print(
        "metadata oracle: \(agreed)/\(compared) fields agree (\(String(format: "%.2f", ratio * 100))%), \(disagreements.count) disagree, \(unverifiable.count) unverifiable, \(errors.count) files unreadable"
    )
    for d in disagreements { print("  disagree: \(d)") }
    for u in unverifiable { print("  unverifiable: \(u)") }
    for e in errors { print("  error: \(e)") }
    #expect(compared > 1000)
    #expect(ratio >= 0.99, "agreement \(ratio) below 99%")
    // Every error is one line naming the file.
    for e in errors {
        #expect(!e.contains("\n"))
        #expect(files.contains { e.hasPrefix($0.path + ": ") }, "error does not name its file: \(e)")
    }
}

/// The converter's Exif path on real files: build the clean HEIC blob from each readable source, decode it, and
/// diff it against the source. No critical field may be lost or changed; what encode dropped is printed.
@Test func heicExifBlobKeepsEveryCriticalFieldOfRealSources() throws {
    let files = try RealWorldCorpus.files([
        "cr2", "cr3", "crw", "dng", "nef", "arw", "raf", "orf", "rw2", "mrw", "iiq", "jpg", "exv",
    ])
    var built = 0
    var problems: [String] = []
    for url in files {
        guard let src = try? MetadataReader.read(url, sidecars: false, decoders: .inProcess), src["IFD0:Make"] != nil
        else { continue }
        let blob: ExifBlob
        do {
            blob = try Exiv2.buildHEICExif(from: url.path, pixelWidth: 640, pixelHeight: 480, software: "Readback test")
        } catch {
            problems.append("\(url.lastPathComponent): build failed: \(error)")
            continue
        }
        built += 1
        let d = try MetadataReader.decodeExif(blob.bytes, label: url.lastPathComponent, decoders: .inProcess)
        let out = MetadataSet(
            path: "out", format: "exif", fields: d.fields, makerNote: d.makerNote,
            orientation: OrientationInfo(heifTransform: 1))
        let diff = Diff.compare(
            source: MetadataSet(
                path: src.path, format: src.format,
                fields: src.fields.filter { !$0.key.group.hasPrefix("XMP") && $0.key.group != "IPTC" },
                makerNote: src.makerNote), output: out, policy: .standard)
        for e in diff.entries where (e.diffClass == .lost || e.diffClass == .changed) && e.criticality == .critical {
            problems.append(
                "\(url.lastPathComponent): \(e.key) \(e.diffClass.rawValue): \(e.source?.description ?? "—") → \(e.output?.description ?? "—")"
            )
        }
        for l in blob.encodingLosses { print("  encode: \(url.lastPathComponent): \(l)") }
        print(
            "  \(url.lastPathComponent): kept \(diff.count(.kept)), expected \(diff.count(.expectedChange)), lost \(diff.count(.lost)), changed \(diff.count(.changed)); MakerNote \(src.makerNote?.description ?? "none") → \(out.makerNote?.description ?? "none")"
        )
    }
    for p in problems { print("  problem: \(p)") }
    #expect(built >= 20)
    #expect(problems.isEmpty)
}

/// Reading is thread-safe: the whole corpus read on several threads at once gives the same fields as one thread.
@Test func parallelReadsMatchSequentialReads() throws {
    let files = try RealWorldCorpus.files([
        "heic", "hif", "avif", "jpg", "cr2", "cr3", "dng", "nef", "arw", "raf", "rw2", "exv", "xmp",
    ])
    let sequential = files.map {
        (try? MetadataReader.read($0, decoders: .inProcess))?.fields.map { "\($0.key)=\($0.value)" }
    }
    final class Box: @unchecked Sendable {
        var results: [[String]?]
        let lock = NSLock()
        init(_ n: Int) { results = Array(repeating: nil, count: n) }
    }
    let box = Box(files.count)
    DispatchQueue.concurrentPerform(iterations: files.count * 2) { i in
        let j = i % files.count
        let r = (try? MetadataReader.read(files[j], decoders: .inProcess))?.fields.map { "\($0.key)=\($0.value)" }
        box.lock.withLock { if i < files.count { box.results[j] = r } }
    }
    #expect(box.results == sequential)
}

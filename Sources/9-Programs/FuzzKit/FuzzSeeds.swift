import Foundation
import GainMap
import HEIF
import TIFFLayout

/// Seeds for every target, cut out of real files with the same parsers: whole HEIF, TIFF/DNG and JPEG files; the
/// XMP packets, `tmap` bodies and Exif MakerNotes they hold; the DNG opcode lists.
public enum FuzzSeeds {
    public static func write(into folder: String, from dirs: [String]) {
        let fm = FileManager.default
        var n = 0
        func put(_ target: FuzzTarget, _ name: String, _ bytes: [UInt8]) {
            guard !bytes.isEmpty, bytes.count <= 1 << 20 else { return }
            let dir = (folder as NSString).appendingPathComponent(target.rawValue)
            try? fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
            n += 1
            _ = fm.createFile(atPath: (dir as NSString).appendingPathComponent("\(n)-\(name)"), contents: Data(bytes))
        }
        for dir in dirs {
            for name in (try? fm.contentsOfDirectory(atPath: dir))?.sorted() ?? [] {
                let path = (dir as NSString).appendingPathComponent(name)
                guard let d = fm.contents(atPath: path), d.count <= 64 << 20 else { continue }
                let b = [UInt8](d)
                if JPEGScanner.image(b) != nil { jpeg(b, name, put) }
                if let layout = try? TIFFLayout(d, followExif: true) { tiff(layout, b, name, put) }
                let f = HEIFFile(bytes: b)
                if f.findings.isEmpty || !f.items.isEmpty { heif(f, b, name, put) }
            }
        }
        print("fuzz seeds: \(n) written into \(folder)")
    }

    static func jpeg(_ b: [UInt8], _ name: String, _ put: (FuzzTarget, String, [UInt8]) -> Void) {
        guard b.count <= 1 << 20, let layout = JPEGScanner.image(b) else { return }
        put(.jpeg, name, b)
        if let x = JPEGScanner.xmp(layout, b) { put(.xmp, name, x) }
        if let e = JPEGScanner.exif(layout, b), let l = try? TIFFLayout(Data(e), followExif: true) {
            tiff(l, e, name + ".exif", put)
        }
    }

    static func tiff(_ layout: TIFFLayout, _ b: [UInt8], _ name: String, _ put: (FuzzTarget, String, [UInt8]) -> Void) {
        if b.count <= 1 << 20 { put(.tiff, name, b) } else { put(.tiff, name + ".head", Array(b.prefix(1 << 16))) }
        for dir in layout.directories {
            for e in dir.entries where [0xC740, 0xC741, 0xC74E].contains(e.tag) {
                if let v = layout.valueBytes(e) { put(.opcodes, name, [UInt8](v)) }
            }
            if let e = dir[0x927C], let v = layout.valueBytes(e) { put(.makernote, name, [UInt8](v)) }
            if let e = dir[700], let v = layout.valueBytes(e) { put(.xmp, name, [UInt8](v)) }
        }
    }

    static func heif(_ f: HEIFFile, _ b: [UInt8], _ name: String, _ put: (FuzzTarget, String, [UInt8]) -> Void) {
        guard !f.items.isEmpty else { return }
        if b.count <= 1 << 18 { put(.heif, name, b) }
        for it in f.items.prefix(64) {
            if it.type == "tmap", let p = f.payload(of: it.id) { put(.tmap, name, p) }
            if let x = f.xmp(of: it.id) { put(.xmp, name, x) }
            if let exif = f.exifTIFF(of: it.id), let layout = try? TIFFLayout(Data(exif), followExif: true) {
                put(.tiff, name + ".exif", exif)
                for dir in layout.directories {
                    if let e = dir[0x927C], let v = layout.valueBytes(e) { put(.makernote, name, [UInt8](v)) }
                }
            }
        }
    }
}

import Foundation

/// Writes a file whole, through a temporary file and a rename (Foundation's atomic write): how tests put a
/// conversion's bytes on disk. The converter returns bytes only; in production, Batch's `FileOps.publish` writes them.
public func writeFile(_ bytes: [UInt8], to url: URL) throws {
    try Data(bytes).write(to: url, options: .atomic)
}

/// Writes a conversion's bytes as `<source's base name>.heic` in `directory`, replacing any file there.
/// - Returns: the file's URL.
@discardableResult
public func writeOutput(_ bytes: [UInt8], for source: URL, in directory: URL) throws -> URL {
    let url = directory.appendingPathComponent(source.deletingPathExtension().lastPathComponent + ".heic")
    try writeFile(bytes, to: url)
    return url
}

import Foundation

/// Reads a whole file once into memory.
func readWholeFile(_ path: String) throws(HEIFReadError) -> [UInt8] {
    var isDir: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
        throw HEIFReadError(path: path, reason: "no such file")
    }
    if isDir.boolValue { throw HEIFReadError(path: path, reason: "is a directory") }
    guard let h = FileHandle(forReadingAtPath: path) else {
        throw HEIFReadError(path: path, reason: "cannot be opened for reading")
    }
    defer { try? h.close() }
    do {
        let d = try h.readToEnd() ?? Data()
        return [UInt8](d)
    } catch {
        throw HEIFReadError(path: path, reason: "read failed: \(error.localizedDescription)")
    }
}

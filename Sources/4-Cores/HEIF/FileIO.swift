import FileContent
import Foundation

/// Reads a whole file once into memory (`FileContent`, where reads are counted).
func readWholeFile(_ path: String) throws(HEIFReadError) -> [UInt8] {
    do { return try FileContent.read(path: path) } catch {
        switch error.kind {
        case .noSuchFile: throw HEIFReadError(path: path, reason: "no such file")
        case .isDirectory: throw HEIFReadError(path: path, reason: "is a directory")
        case .cannotOpen: throw HEIFReadError(path: path, reason: "cannot be opened for reading")
        case .readFailed:
            throw HEIFReadError(path: path, reason: "read failed: \(String(cString: strerror(error.errno)))")
        }
    }
}

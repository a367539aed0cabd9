import Converter
import Foundation

/// One source file found on the command line or under a source folder.
public struct SourceFile: Sendable, Equatable {
    /// Absolute, canonical path of the source.
    public var path: String
    /// The folder the source was found under (canonical); removal never leaves it.
    public var root: String
    /// The path relative to `root`.
    public var relativePath: String
    /// Where its output goes: `<out>/<relative path with .heic>`.
    public var outputPath: String
    var size: Int64
    var mtimeNs: Int64
}

/// A SRC argument that cannot be used, and why.
public struct ArgumentProblem: Sendable, Equatable, CustomStringConvertible {
    /// As given on the command line.
    public var argument: String
    /// Its canonical absolute path (as far as it exists).
    public var path: String
    public var reason: String
    /// True when nothing exists at the path.
    public var missing: Bool
    public var description: String { "\(argument): \(reason)" }
}

/// Finds RAW files: files given directly, or every RAW file under a folder, recursively, never following symlinks.
public enum Discovery {
    /// True when `name` has a RAW extension: one the converter reads as RAW (`HEICConverter.rawExtensions`, the one
    /// list), compared case-insensitively.
    public static func isRaw(_ name: String) -> Bool {
        HEICConverter.rawExtensions.contains((name as NSString).pathExtension.lowercased())
    }

    /// What discovery found, plus the problems it met (a missing argument, a symlink skipped, an output collision).
    public struct Result: Sendable {
        public var files: [SourceFile] = []
        /// Items that cannot be converted (two sources mapping to one output).
        public var problems: [String] = []
        /// The relative path of the source each of `problems` is about (what `--shard` keys it by).
        var problemKeys: [String] = []
        /// SRC arguments that cannot be used: missing, a symlink, not a RAW file, not a file or folder.
        public var argumentProblems: [ArgumentProblem] = []
        public var skippedSymlinks: [String] = []
    }

    /// Walks `arguments` (files or folders) and maps each RAW file to its output under `outputRoot`.
    /// - Parameters:
    ///   - arguments: the SRC paths as given.
    ///   - outputRoot: the canonical output folder; it and `.readback`/Trash folders are never descended into.
    /// - Throws: `BatchError.io` when a folder cannot be read.
    public static func discover(_ arguments: [String], outputRoot: String) throws -> Result {
        var result = Result()
        var outputs: [String: String] = [:]
        func add(path: String, root: String, info: FileInfo) {
            let rel = path == root ? (path as NSString).lastPathComponent : String(path.dropFirst(root.count + 1))
            let relOut = ((rel as NSString).deletingPathExtension as NSString).appendingPathExtension("heic") ?? rel
            let out = (outputRoot as NSString).appendingPathComponent(relOut)
            if let other = outputs[out], other != path {
                result.problems.append(
                    "\(path): its output \(out) would overwrite the output of \(other); not converted"
                        + " (rename one of them)")
                result.problemKeys.append(rel)
                return
            }
            if outputs[out] == path { return }
            outputs[out] = path
            result.files.append(
                SourceFile(
                    path: path, root: root, relativePath: rel, outputPath: out, size: info.size, mtimeNs: info.mtimeNs))
        }
        for arg in arguments {
            let absolute = arg.hasPrefix("/") ? arg : FileManager.default.currentDirectoryPath + "/" + arg
            func refuse(_ reason: String, missing: Bool = false) {
                result.argumentProblems.append(
                    ArgumentProblem(
                        argument: arg, path: FileOps.canonicalPath(absolute), reason: reason, missing: missing))
            }
            guard let i = try FileOps.info(absolute) else {
                refuse("no such file or folder", missing: true)
                continue
            }
            if i.isSymlink {
                result.skippedSymlinks.append(arg)
                refuse("is a symlink; Readback never follows symlinks (give the folder it points to)")
                continue
            }
            guard let canonical = FileOps.realPath(absolute) else {
                refuse("cannot resolve its path")
                continue
            }
            if i.isRegular {
                guard isRaw(canonical) else {
                    refuse("not a RAW file (its extension is not one of Readback's RAW types)")
                    continue
                }
                add(path: canonical, root: (canonical as NSString).deletingLastPathComponent, info: i)
                continue
            }
            guard i.isDirectory else {
                refuse("not a regular file or folder")
                continue
            }
            var stack = [canonical]
            var found: [(String, FileInfo)] = []
            while let dir = stack.popLast() {
                for name in try FileOps.listDirectory(dir) {
                    let path = (dir as NSString).appendingPathComponent(name)
                    guard let e = try FileOps.info(path) else { continue }
                    if e.isSymlink {
                        if isRaw(name) { result.skippedSymlinks.append(path) }
                        continue
                    }
                    if e.isDirectory {
                        if name == ".readback" || name.hasPrefix(".Trash") || path == outputRoot { continue }
                        stack.append(path)
                    } else if e.isRegular, isRaw(name), !name.hasPrefix(FileOps.tempPrefix) {
                        found.append((path, e))
                    }
                }
            }
            for (path, e) in found.sorted(by: { $0.0 < $1.0 }) { add(path: path, root: canonical, info: e) }
        }
        return result
    }
}

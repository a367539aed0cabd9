// swift-tools-version:6.0
// Readback: RAW → HEIC without silent losses, proven by reading every output back.
// Layers, bottom to top: a target depends only on its own layer or lower ones, and its sources are in its layer's
// folder, Sources/N-Layer/Target. docs/ARCHITECTURE.md holds the table (one paragraph per layer), which
// Tests/HouseRulesTests/LayerTests.swift checks against this manifest and those folders.
import Foundation
import PackageDescription

/// Where `make deps` builds LibRaw (scripts/libraw/build.sh): beside this manifest, in .build/libraw.
let libRawPrefix = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(".build/libraw")
    .path

let package = Package(
    name: "Readback",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "readback", targets: ["readback"]),
        .executable(name: "FuzzHEIF", targets: ["FuzzHEIF"]),
        .executable(name: "FuzzParsers", targets: ["FuzzParsers"]),
        // The quality ladder (docs/quality-ladder.md): `make ladder`; `readback-ladder frame` feeds the benchmark's floor.
        .executable(name: "readback-ladder", targets: ["QualityLadder"]),
        // The render check's measurements: `scripts/render-fidelity.sh` rebuilds docs/render-fidelity.md.
        .executable(name: "readback-render", targets: ["RenderBench"]),
    ],
    targets: [
        // 1. C libraries (Sources/1-CLibraries).
        .systemLibrary(
            name: "CHeif", path: "Sources/1-CLibraries/CHeif", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        .systemLibrary(
            name: "CDe265", path: "Sources/1-CLibraries/CDe265", pkgConfig: "libde265",
            providers: [.apt(["libde265-dev"])]),
        // LibRaw from .build/libraw, by path (shim.h), never a system one: Debian 12 has only 0.20.2.
        .systemLibrary(name: "CRaw", path: "Sources/1-CLibraries/CRaw"),
        .systemLibrary(
            name: "CSQLite", path: "Sources/1-CLibraries/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CCrypto", path: "Sources/1-CLibraries/CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CTurboJPEG", path: "Sources/1-CLibraries/CTurboJPEG", pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"])]),
        // libavif 0.11 (AV1 through dav1d/libaom): a second AVIF reader beside libheif for the pixel checks.
        // CAVIF and CJxl name no pkg-config package: their .pc files carry only -D flags SwiftPM refuses
        // ("prohibited flag"), the headers are in /usr/include and the module maps link the libraries.
        .systemLibrary(name: "CAVIF", path: "Sources/1-CLibraries/CAVIF", providers: [.apt(["libavif-dev"])]),
        // glibc's extended-attribute calls (<sys/xattr.h>), which the Glibc module does not export.
        .systemLibrary(name: "CXattr", path: "Sources/1-CLibraries/CXattr"),
        // libjxl 0.7: the JPEG XL tiles of DNG 1.7 files (Compression 52546), and the generated corpus's.
        .systemLibrary(name: "CJxl", path: "Sources/1-CLibraries/CJxl", providers: [.apt(["libjxl-dev"])]),
        .target(
            name: "CExiv2Shim", path: "Sources/1-CLibraries/CExiv2Shim",
            cxxSettings: [.unsafeFlags(["-Wno-deprecated-declarations"])],
            linkerSettings: [.linkedLibrary("exiv2"), .linkedLibrary("stdc++")]
        ),

        // Worker processes: spawning, SCM_RIGHTS, seccomp (libseccomp) and rlimits, in C since they are macros.
        .target(
            name: "CIsolation", path: "Sources/1-CLibraries/CIsolation", linkerSettings: [.linkedLibrary("seccomp")]),

        // 3. Safe wrappers (Sources/3-Wrappers): the only targets that import a C module.
        .target(
            name: "HeifCodec", dependencies: ["CHeif", "CDe265", "ColorScience"], path: "Sources/3-Wrappers/HeifCodec"),
        // LibRaw 0.22.2, static, from .build/libraw (make deps; docs/install.md), and the libraries it is built with.
        .target(
            name: "RawDecoder", dependencies: ["CRaw", "JXLCodec", "TIFFLayout"], path: "Sources/3-Wrappers/RawDecoder",
            linkerSettings: [
                .unsafeFlags(["-L", libRawPrefix + "/lib"]), .linkedLibrary("jpeg"), .linkedLibrary("z"),
                .linkedLibrary("lcms2"), .linkedLibrary("gomp"), .linkedLibrary("stdc++"),
            ]),
        .target(
            name: "Exiv2Bridge", dependencies: ["CExiv2Shim", "MetadataEntries"], path: "Sources/3-Wrappers/Exiv2Bridge"
        ),
        // JPEG XL decoding (DNG 1.7 raw tiles, in the decoder workers) and encoding (the generated corpus's DNGs).
        .target(name: "JXLCodec", dependencies: ["CJxl"], path: "Sources/3-Wrappers/JXLCodec"),
        .target(name: "Store", dependencies: ["CSQLite"], path: "Sources/3-Wrappers/Store"),
        // Whole-file SHA-256 through libcrypto (the batch's source fingerprints); error type and hex from Digest.
        .target(name: "Hashing", dependencies: ["CCrypto", "Digest"], path: "Sources/3-Wrappers/Hashing"),
        // JPEG decoding (embedded previews, JPEG sources) for the render check.
        .target(name: "JPEGCodec", dependencies: ["CTurboJPEG"], path: "Sources/3-Wrappers/JPEGCodec"),
        // AVIF decoding through libavif, for AVIF outputs libheif cannot decode: decodes or says why not.
        .target(name: "AVIFCodec", dependencies: ["CAVIF"], path: "Sources/3-Wrappers/AVIFCodec"),
        // File facts (times, mode, owner, user xattrs) read and carried through POSIX calls, and the XMP sidecar rules.
        .target(name: "FileFacts", dependencies: ["CXattr", "FileKinds"], path: "Sources/3-Wrappers/FileFacts"),
        // The decoders in worker processes: a pool of `readback __decode-worker` processes, each locked down, fed
        // bytes and returning pixels through memfds; crashes, hangs and exhaustion become `WorkerFailure`s.
        .target(
            name: "Isolation",
            dependencies: [
                "AVIFCodec", "CIsolation", "ColorScience", "Exiv2Bridge", "Findings", "HeifCodec", "JPEGCodec",
                "MetadataEntries", "RawDecoder",
            ], path: "Sources/3-Wrappers/Isolation"),

        // 2. Foundations and 4. cores (Sources/2-Foundations, Sources/4-Cores): pure Swift, no C.
        // SHA-256 in pure Swift, a leaf: in-memory bytes for the cores, files for the tools; its file-error type is the
        // one Hashing throws too.
        .target(name: "Digest", path: "Sources/2-Foundations/Digest"),
        // The sharding rule (`--shard K/N`: SHA-256 of a relative path mod N) and the source-list fingerprint.
        .target(name: "Sharding", dependencies: ["Digest"], path: "Sources/4-Cores/Sharding"),
        // Colour science, a leaf and the one home of colour: nclx code points, transfer curves, primaries matrices,
        // luminance weights, colour spaces (`ColorSpace`, and the converter's `ColorSpace.Output`), CIELAB, CIEDE2000
        // and the displayed-image helpers (`RenderImage`: crop, resize, the letterbox rule). Optimised in debug builds
        // too: its per-pixel loops (CIELAB, CIEDE2000) are about 4× slower unoptimised, which the test suites'
        // hundreds of render comparisons of real files would pay.
        .target(
            name: "ColorScience", path: "Sources/2-Foundations/ColorScience", swiftSettings: [.unsafeFlags(["-O"])]),
        // One metadata entry as exiv2 delivers it (`RawEntry`), a leaf: Exiv2Bridge fills it, Metadata types it.
        .target(name: "MetadataEntries", path: "Sources/2-Foundations/MetadataEntries"),
        // The one finding shape (code, severity, message, evidence) that every checker fills; a leaf.
        .target(name: "Findings", path: "Sources/2-Foundations/Findings"),
        // A file's content read into memory in one read, the reads counted for the read-once tests; a leaf.
        .target(name: "FileContent", path: "Sources/2-Foundations/FileContent"),
        // Where a TIFF file's directories and entries are (a bounded walk), and their integer values; a leaf.
        .target(name: "TIFFLayout", path: "Sources/2-Foundations/TIFFLayout"),
        // What a file is by its extension (RAW, HEIF, AVIF, JPEG, sidecar; the output formats), decided once; a leaf.
        .target(name: "FileKinds", path: "Sources/2-Foundations/FileKinds"),
        .target(name: "HEIF", dependencies: ["ColorScience", "FileContent", "Findings"], path: "Sources/4-Cores/HEIF"),
        .target(
            name: "Metadata", dependencies: ["ColorScience", "Digest", "Findings", "MetadataEntries"],
            path: "Sources/4-Cores/Metadata"),
        .target(
            name: "GainMap", dependencies: ["ColorScience", "HEIF", "Findings", "TIFFLayout"],
            path: "Sources/4-Cores/GainMap"),
        .target(name: "ReportModel", dependencies: ["Findings"], path: "Sources/4-Cores/ReportModel"),
        // The container's conformance to HEIF, MIAF and their profiles, read from the parse: one finding code per rule.
        .target(name: "HEIFConformance", dependencies: ["Findings", "HEIF"], path: "Sources/4-Cores/HEIFConformance"),
        // The report's files: JSON, HTML and JUnit written as the entries stream past, the thumbnails' PNGs, the
        // baseline comparison and the shard merge; pure renderers of ReportModel.
        .target(
            name: "ReportWriting", dependencies: ["Findings", "ReportModel", "Sharding"],
            path: "Sources/4-Cores/ReportWriting"),
        .target(
            name: "CorpusKit", dependencies: ["ColorScience", "Digest", "Findings", "HEIF", "GainMap", "TIFFLayout"],
            path: "Sources/4-Cores/CorpusKit"),
        // Image-fidelity metrics (SSIM, PSNR) and the quality-ladder selection rule.
        .target(name: "Fidelity", dependencies: ["ColorScience"], path: "Sources/4-Cores/Fidelity"),
        // Pixel checks of an output against a reference rendering (exposure, cast, orientation, ΔE00), measured in
        // ColorScience's CIELAB. Optimised in debug builds too, like ColorScience: its per-pixel loops run for every
        // comparison.
        .target(
            name: "RenderCheck", dependencies: ["ColorScience", "Findings"], path: "Sources/4-Cores/RenderCheck",
            swiftSettings: [.unsafeFlags(["-O"])]),

        // 5. Readers (Sources/5-Readers). Reading renderings from files for the render check: a source's reference
        //    (embedded preview, thumbnail item, the JPEG itself) and an output's pixels, through exiv2, TurboJPEG and
        //    libheif.
        .target(
            name: "RenderIO",
            dependencies: [
                "ColorScience", "RenderCheck", "Exiv2Bridge", "FileContent", "JPEGCodec", "HeifCodec", "HEIF",
                "Isolation", "TIFFLayout",
            ], path: "Sources/5-Readers/RenderIO"),

        // Reading metadata from any file: container layer + exiv2 wrapper → the Metadata model.
        .target(
            name: "MetadataIO",
            dependencies: ["FileKinds", "HEIF", "Metadata", "Exiv2Bridge", "FileContent", "FileFacts", "Isolation"],
            path: "Sources/5-Readers/MetadataIO"),
        // 6. Stages (Sources/6-Stages): Converter and Audit, siblings on the cores.
        .target(
            name: "Audit",
            dependencies: [
                "FileKinds",
                "ColorScience", "FileContent", "Findings", "HEIF", "HEIFConformance", "Metadata", "MetadataIO",
                "GainMap", "ReportModel", "ReportWriting", "HeifCodec", "Sharding", "Fidelity", "RenderCheck",
                "RenderIO", "FileFacts", "Hashing", "JPEGCodec",
                "AVIFCodec", "Isolation", "TIFFLayout",
            ], path: "Sources/6-Stages/Audit"
        ),
        // The audit history: every run's report stored in SQLite (Audit itself needs no SQLite).
        .target(
            name: "AuditHistory", dependencies: ["Findings", "ReportModel", "Store"],
            path: "Sources/6-Stages/AuditHistory"),
        .target(
            name: "Converter",
            dependencies: [
                "FileKinds",
                "ColorScience", "HEIF", "GainMap", "HeifCodec", "RawDecoder", "Exiv2Bridge", "Fidelity", "FileContent",
                "FileFacts", "Findings", "RenderIO", "Isolation",
            ], path: "Sources/6-Stages/Converter"
        ),

        // 7. Batch (Sources/7-Batch).
        .target(
            name: "Batch",
            dependencies: [
                "CIsolation", "Digest", "Hashing", "Converter", "Audit", "Store", "ReportModel", "Findings", "Sharding",
                "FileContent", "FileFacts", "Fidelity", "Isolation", "RenderIO",
            ], path: "Sources/7-Batch/Batch"
        ),

        // 8. The command line (Sources/8-CommandLine) and 9. the programs (Sources/9-Programs).
        .target(
            name: "ReadbackCLI",
            dependencies: [
                "FileKinds",
                "AVIFCodec", "Batch", "Converter", "Audit", "AuditHistory", "Findings", "GainMap", "HEIF", "Metadata",
                "MetadataIO", "ReportModel", "ReportWriting", "CorpusKit", "HeifCodec", "RawDecoder", "Exiv2Bridge",
                "Store", "Sharding", "Fidelity", "Isolation",
            ], path: "Sources/8-CommandLine/ReadbackCLI"
        ),
        .executableTarget(name: "readback", dependencies: ["ReadbackCLI"], path: "Sources/9-Programs/readback"),

        // Fuzzing entry point: `swift build --product FuzzHEIF --sanitize=fuzzer` (see Makefile `fuzz`).
        .executableTarget(name: "FuzzHEIF", dependencies: ["HEIF"], path: "Sources/9-Programs/FuzzHEIF"),
        // Every parser of untrusted bytes of ours, one target per READBACK_FUZZ value (`make fuzz`, scripts/fuzz.sh).
        .target(
            name: "FuzzKit", dependencies: ["CorpusKit", "GainMap", "HEIF", "RawDecoder", "TIFFLayout"],
            path: "Sources/9-Programs/FuzzKit"),
        .executableTarget(name: "FuzzParsers", dependencies: ["FuzzKit"], path: "Sources/9-Programs/FuzzParsers"),
        // Quality ladder: encodes rendered RAWs at every preset × quality and measures them (docs/quality-ladder.md).
        .executableTarget(
            name: "QualityLadder",
            dependencies: [
                "ColorScience", "Converter", "CorpusKit", "Fidelity", "GainMap", "HeifCodec", "HEIF", "RawDecoder",
            ], path: "Sources/9-Programs/QualityLadder"),
        // Render check measurements: an output (HEIC, JPEG, TIFF, PPM) against a source's reference render, as JSON.
        .executableTarget(
            name: "RenderBench", dependencies: ["ColorScience", "HeifCodec", "JPEGCodec", "RenderCheck", "RenderIO"],
            path: "Sources/9-Programs/RenderBench"),

        // Tests: one target per module, goldens and fixtures beside each; TestSupport holds what several share (goldens,
        // the test DNG writer, the fixed report, the gain-map plane decoder).
        .target(
            name: "TestSupport",
            dependencies: ["CorpusKit", "Fidelity", "Findings", "GainMap", "HeifCodec", "RawDecoder", "ReportModel"],
            path: "Tests/TestSupport"),
        .testTarget(name: "ColorScienceTests", dependencies: ["ColorScience"]),
        .testTarget(name: "HEIFConformanceTests", dependencies: ["Findings", "HEIF", "HEIFConformance"]),
        .testTarget(name: "DigestTests", dependencies: ["Digest", "Hashing"]),
        .testTarget(name: "HeifCodecTests", dependencies: ["HEIF", "HeifCodec"]),
        .testTarget(name: "RawDecoderTests", dependencies: ["CorpusKit", "RawDecoder", "TestSupport"]),
        .testTarget(name: "ShardingTests", dependencies: ["Sharding"]),
        .testTarget(name: "FileFactsTests", dependencies: ["FileFacts", "TestSupport"]),
        .testTarget(name: "StoreTests", dependencies: ["Store", "TestSupport"]),
        // Fixtures/, Goldens/ and Expectations/ are read from the source tree by path (Repo.root), not bundled.
        .testTarget(
            name: "HEIFTests", dependencies: ["ColorScience", "CorpusKit", "Findings", "HEIF", "TestSupport"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "MetadataTests",
            dependencies: ["ColorScience", "Exiv2Bridge", "FileFacts", "HEIF", "Metadata", "MetadataIO", "TestSupport"]),
        .testTarget(
            name: "GainMapTests",
            dependencies: ["ColorScience", "CorpusKit", "Findings", "GainMap", "HEIF", "HeifCodec", "TestSupport"]
        ),
        .testTarget(
            name: "ReportModelTests", dependencies: ["Findings", "ReportModel", "TestSupport"], exclude: ["Goldens"]),
        .testTarget(
            name: "CorpusTests",
            dependencies: [
                "ColorScience", "CorpusKit", "Digest", "FuzzKit", "HEIF", "JXLCodec", "RawDecoder", "TestSupport",
            ]),
        .testTarget(name: "FidelityTests", dependencies: ["Converter", "Fidelity"]),
        .testTarget(
            name: "RenderCheckTests",
            dependencies: [
                "ColorScience", "CorpusKit", "Findings", "JPEGCodec", "RenderCheck", "RenderIO",
            ]
        ),
        .testTarget(
            name: "ConverterTests",
            dependencies: [
                "Audit", "ColorScience", "Converter", "CorpusKit", "FileFacts", "Fidelity", "Findings", "GainMap",
                "HEIF",
                "HeifCodec", "RawDecoder", "RenderCheck", "RenderIO", "ReportModel", "ReportWriting", "TestSupport",
            ]
        ),
        .testTarget(
            name: "AuditTests",
            dependencies: [
                "Audit", "AVIFCodec", "AuditHistory", "ColorScience", "CorpusKit", "Findings", "GainMap", "HEIF",
                "HEIFConformance", "HeifCodec", "ReportModel", "ReportWriting", "Sharding", "TestSupport",
            ],
            exclude: ["Goldens"]
        ),
        .testTarget(
            name: "AuditHistoryTests", dependencies: ["AuditHistory", "Findings", "ReportModel", "TestSupport"]),
        .testTarget(
            name: "BatchTests",
            dependencies: [
                "Audit", "Batch", "CIsolation", "Converter", "CorpusKit", "Digest", "Exiv2Bridge", "FileFacts",
                "Findings", "Isolation", "JXLCodec", "MetadataEntries", "RawDecoder", "RenderCheck", "RenderIO",
                "ReportModel", "Sharding", "Store", "TestSupport",
            ]
        ),
        .testTarget(
            name: "CLITests",
            dependencies: [
                "Batch", "Converter", "CorpusKit", "FileContent", "HEIF", "HeifCodec", "JXLCodec", "ReadbackCLI",
                "ReportModel", "TestSupport",
            ],
            exclude: ["Goldens"]),
        // The house rules that hold for the whole package: file and function sizes, the package graph, citations.
        .testTarget(name: "HouseRulesTests"),
        // The real-world suite over a real-world corpus (make test-real CORPUS=DIR): run by `make test-real`, skipped
        // by `make test`.
        .testTarget(
            name: "RealWorldTests",
            dependencies: [
                "Audit", "AVIFCodec", "ColorScience", "Converter", "CorpusKit", "Digest", "Exiv2Bridge", "FileFacts",
                "Fidelity", "Findings", "GainMap", "HEIF",
                "HeifCodec", "Metadata",
                "MetadataIO", "RawDecoder", "RenderCheck", "RenderIO", "ReportModel", "TestSupport",
            ],
            exclude: ["Expectations", "Goldens"]
        ),
    ],
    cxxLanguageStandard: .cxx17
)

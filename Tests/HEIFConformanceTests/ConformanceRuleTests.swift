import Findings
import Foundation
import Testing

@testable import HEIF
@testable import HEIFConformance

/// The conformance rules one by one, on files built in memory: a file that keeps every rule, then one change each
/// that breaks exactly one rule. The pixels are never decoded (the rules read the container), so the payloads are
/// placeholders. The parity with ComplianceWarden is checked on its own vectors in the RealWorld suite.
private enum Build {
    static let brands = Brands(major: "heic", compatible: ["mif1", "miaf", "heic"])
    static func image(_ w: UInt32 = 256, _ h: UInt32 = 256, _ extra: [(Property, essential: Bool)] = [])
        -> [(Property, essential: Bool)]
    {
        [(.ispe(width: w, height: h), false), (.pixi(bitsPerChannel: [8, 8, 8]), false)] + extra
    }

    /// A conforming file with a primary, then `change` applied to the builder (with the primary's id).
    static func file(_ change: (inout HEIFBuilder, UInt32) -> Void = { _, _ in }, brands: Brands = brands)
        -> HEIFFile
    {
        var b = HEIFBuilder(brands: brands)
        let p = b.addCodedImage(properties: image(), data: [0, 0, 0, 1])
        b.setPrimary(p)
        change(&b, p)
        return HEIFFile(bytes: b.build())
    }

    static func codes(_ f: HEIFFile) -> [FindingCode] { HEIFConformance.problems(f).map(\.code) }
}

@Test func aFileThatKeepsTheRulesHasNoConformanceProblem() {
    #expect(Build.codes(Build.file()).isEmpty, "\(HEIFConformance.problems(Build.file()).map(\.message))")
    // A grid of 64×64 tiles, a thumbnail within the factor 200, an iden with one input: still nothing.
    let f = Build.file { b, p in
        let g = b.addGrid(
            columns: 2, rows: 1, outputWidth: 128, outputHeight: 64,
            tiles: [(Build.image(64, 64), [1]), (Build.image(64, 64), [2])],
            properties: [(.pixi(bitsPerChannel: [8, 8, 8]), false)],
            hidden: true)
        let t = b.addCodedImage(properties: Build.image(32, 32), data: [3])
        b.addReference(type: "thmb", from: t, to: [p])
        b.addDerivedImage(type: "iden", payload: [], inputs: [g.grid], properties: Build.image(128, 64), hidden: true)
    }
    #expect(Build.codes(f).isEmpty, "\(HEIFConformance.problems(f).map(\.message))")
}

@Test func eachBrokenRuleGetsItsOwnCodeAndClause() {
    let cases: [(String, HEIFFile, FindingCode, String)] = [
        (
            "no miaf brand", Build.file(brands: Brands(major: "heic", compatible: ["mif1", "heic"])),
            .conformanceBrandMiafMissing, "§7.2.1.2"
        ),
        (
            "minor version", Build.file(brands: Brands(major: "heic", minorVersion: 1, compatible: ["mif1", "miaf"])),
            .conformanceFtypMinorVersion, "§10.1"
        ),
        (
            "no pixi", Build.file { b, p in b.setProperties(of: p, [(.ispe(width: 256, height: 256), false)]) },
            .conformancePixiMissing, "§7.3.6.6"
        ),
        (
            "pasp 2:1",
            Build.file { b, p in
                b.setProperties(of: p, Build.image(256, 256, [(.pasp(hSpacing: 2, vSpacing: 1), false)]))
            },
            .conformancePaspNotSquare, "§7.3.6.5"
        ),
        (
            "imir before irot",
            Build.file { b, p in
                b.setProperties(of: p, Build.image(256, 256, [(.imir(axis: 0), true), (.irot(quarterTurns: 1), true)]))
            }, .conformanceTransformOrder, "§7.3.6.7"
        ),
        (
            "Exif primary",
            Build.file { b, p in b.setPrimary(b.addExif(tiff: [0x4D, 0x4D, 0, 42, 0, 0, 0, 8], describing: [p])) },
            .conformancePrimaryNotImage, "§6.2"
        ),
        (
            "thumbnail primary",
            Build.file { b, p in
                let m = b.addCodedImage(properties: Build.image(512, 512), data: [5])
                b.addReference(type: "thmb", from: p, to: [m])
            }, .conformancePrimaryNotMaster, "§7.3.2"
        ),
        (
            "thumbnail of a thumbnail",
            Build.file { b, p in
                let t = b.addCodedImage(properties: Build.image(64, 64), data: [6])
                let tt = b.addCodedImage(properties: Build.image(32, 32), data: [7])
                b.addReference(type: "thmb", from: t, to: [p])
                b.addReference(type: "thmb", from: tt, to: [t])
            }, .conformanceThumbnailChain, "§6.4.4"
        ),
        (
            "thumbnail too small",
            Build.file { b, p in
                let t = b.addCodedImage(properties: Build.image(16, 16), data: [8])
                b.addReference(type: "thmb", from: t, to: [p])
            }, .conformanceThumbnailRatio, "§7.3.3"
        ),
        (
            "iden of an iden",
            Build.file { b, p in
                let i = b.addDerivedImage(
                    type: "iden", payload: [], inputs: [p], properties: Build.image(), hidden: true)
                b.addDerivedImage(type: "iden", payload: [], inputs: [i], properties: Build.image(), hidden: true)
            }, .conformanceIdenChain, "§7.3.9"
        ),
        (
            "iden with two inputs",
            Build.file { b, p in
                let q = b.addCodedImage(properties: Build.image(), data: [9], hidden: true)
                b.addDerivedImage(type: "iden", payload: [], inputs: [p, q], properties: Build.image(), hidden: true)
            }, .conformanceIdenInputs, "§6.6.2.1"
        ),
        (
            "grid over an overlay",
            Build.file { b, p in
                let o = b.addDerivedImage(
                    type: "iovl", payload: [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0], inputs: [p],
                    properties: Build.image(), hidden: true)
                b.addDerivedImage(
                    type: "grid", payload: ImageGrid.payload(rows: 1, columns: 1, outputWidth: 256, outputHeight: 256),
                    inputs: [o], properties: Build.image(), hidden: true)
            }, .conformanceDerivationOrder, "§7.3.11.1"
        ),
        (
            "grid of a metadata item",
            Build.file { b, p in
                let e = b.addExif(tiff: [0x4D, 0x4D, 0, 42, 0, 0, 0, 8], describing: [p])
                b.addDerivedImage(
                    type: "grid", payload: ImageGrid.payload(rows: 1, columns: 1, outputWidth: 256, outputHeight: 256),
                    inputs: [e], properties: Build.image(), hidden: true)
            }, .conformanceDerivationOrigin, "§7.3.11.1"
        ),
        (
            "grid version 1",
            Build.file { b, p in
                b.addDerivedImage(
                    type: "grid", payload: [1, 0, 0, 0, 1, 0, 1, 0], inputs: [p], properties: Build.image(),
                    hidden: true)
            }, .conformanceDerivedVersion, "§6.6.2.3.3"
        ),
        (
            "tiles of two sizes",
            Build.file { b, _ in
                b.addGrid(
                    columns: 2, rows: 1, outputWidth: 128, outputHeight: 64,
                    tiles: [(Build.image(64, 64), [1]), (Build.image(128, 64), [2])],
                    properties: [(.pixi(bitsPerChannel: [8, 8, 8]), false)], hidden: true)
            }, .conformanceGridTileSizes, "§6.6.2.3.1"
        ),
        (
            "32-pixel tiles",
            Build.file { b, _ in
                b.addGrid(
                    columns: 2, rows: 1, outputWidth: 64, outputHeight: 32,
                    tiles: [(Build.image(32, 32), [1]), (Build.image(32, 32), [2])],
                    properties: [(.pixi(bitsPerChannel: [8, 8, 8]), false)], hidden: true)
            }, .conformanceGridTileSmall, "§7.3.11.4.2"
        ),
        (
            "tiles short of the canvas",
            Build.file { b, _ in
                b.addGrid(
                    columns: 2, rows: 1, outputWidth: 200, outputHeight: 64,
                    tiles: [(Build.image(64, 64), [1]), (Build.image(64, 64), [2])],
                    properties: [(.pixi(bitsPerChannel: [8, 8, 8]), false)], hidden: true)
            }, .conformanceGridCoverage, "§6.6.2.3.1"
        ),
        (
            "hvcC not essential",
            Build.file { b, p in
                let c = HEVCConfig(
                    generalProfileSpace: 0, generalTierFlag: false, generalProfileIDC: 1, generalLevelIDC: 90,
                    chromaFormat: 1, bitDepthLuma: 8, bitDepthChroma: 8, nalLengthSize: 4, arrays: [], raw: [])
                b.setProperties(of: p, [(.hvcC(c), false)] + Build.image())
            }, .conformanceConfigNotEssential, "§B.2.3.1"
        ),
        (
            "iinf out of order",
            Build.file { b, _ in
                b.addItem(Item(id: 90, type: "hvc1", hidden: true), properties: Build.image(), payload: [1])
                b.addItem(Item(id: 50, type: "hvc1", hidden: true), payload: [2])
            }, .conformanceIinfOrder, "§8.11.6.1"
        ),
    ]
    for (name, file, code, clause) in cases {
        let problems = HEIFConformance.problems(file)
        #expect(problems.map(\.code) == [code], "\(name): \(problems.map(\.message))")
        #expect(problems.allSatisfy { $0.message.hasSuffix(")") && $0.message.contains(clause) }, "\(name)")
    }
}

@Test func aHandlerWithReservedBitsSetIsReported() throws {
    var bytes = HEIFBuilder(brands: Build.brands).build()
    let at = try #require((0..<(bytes.count - 4)).first { bytes[$0..<($0 + 4)].elementsEqual("hdlr".utf8) })
    // Body: version+flags (4), pre_defined (4), handler_type (4), reserved (12), name.
    bytes[at + 4 + 12] = 1
    let problems = HEIFConformance.problems(HEIFFile(bytes: bytes)).filter { $0.code == .conformanceHdlrFields }
    #expect(problems.count == 1 && problems.first?.message.contains("§8.4.3.1") == true, "\(problems)")
}

@Test func aToneMapIsTheLastStepOfTheDerivationOrder() {
    #expect(HEIFConformance.isInOrder(["grid", "tmap"]))
    #expect(HEIFConformance.isInOrder(["iden", "grid", "iden", "iovl", "iden", "tmap"]))
    #expect(HEIFConformance.isInOrder([]))
    #expect(!HEIFConformance.isInOrder(["tmap", "grid"]))
    #expect(!HEIFConformance.isInOrder(["iovl", "grid"]))
    #expect(!HEIFConformance.isInOrder(["grid", "grid"]))
    // A gain-map file: tmap over [grid, gain map], the base grid of coded tiles. No derivation-order problem.
    let f = Build.file(
        { b, p in
            let g = b.addGrid(
                columns: 2, rows: 1, outputWidth: 128, outputHeight: 64,
                tiles: [(Build.image(64, 64), [1]), (Build.image(64, 64), [2])],
                properties: [(.pixi(bitsPerChannel: [8, 8, 8]), false)])
            b.setPrimary(g.grid)
            let t = b.addDerivedImage(
                type: "tmap", payload: [0], inputs: [g.grid, p], properties: Build.image(128, 64))
            b.addEntityGroup(type: "altr", entities: [t, g.grid])
        }, brands: Brands(major: "heic", compatible: ["mif1", "miaf", "heic", "tmap"]))
    #expect(!Build.codes(f).contains(.conformanceDerivationOrder), "\(HEIFConformance.problems(f).map(\.message))")
}

@Test func theHEVCProfileBrandsAllowWhatAnnexAListsForThem() {
    func config(_ profile: UInt8, _ chroma: UInt8, _ bits: UInt8) -> HEVCConfig {
        HEVCConfig(
            generalProfileSpace: 0, generalTierFlag: false, generalProfileIDC: profile, generalLevelIDC: 90,
            chromaFormat: chroma, bitDepthLuma: bits, bitDepthChroma: bits, nalLengthSize: 4, arrays: [], raw: [])
    }
    let mono8 = config(4, 0, 8)
    let main10 = config(2, 1, 10)
    let rext444 = config(4, 3, 10)
    let rext422 = config(4, 2, 10)
    #expect(HEIFConformance.allows("MiHB", config(1, 1, 8)) && HEIFConformance.allows("MiHB", config(3, 1, 8)))
    #expect(!HEIFConformance.allows("MiHB", main10) && !HEIFConformance.allows("MiHB", mono8))
    #expect(HEIFConformance.allows("MiHA", main10) && HEIFConformance.allows("MiHA", rext422))
    #expect(!HEIFConformance.allows("MiHA", mono8) && !HEIFConformance.allows("MiHA", rext444))
    #expect(
        HEIFConformance.allows("MiHE", mono8) && HEIFConformance.allows("MiHE", rext444)
            && HEIFConformance.allows("MiHE", main10))
    #expect(!HEIFConformance.allows("MiHE", config(4, 3, 12)))
}

@Test func aLayerSelectorMustBeEssential() {
    let lsel = Property.unknown(type: "lsel", body: [0, 0])
    for essential in [false, true] {
        let f = Build.file { b, p in b.setProperties(of: p, Build.image(256, 256, [(lsel, essential)])) }
        let problems = HEIFConformance.problems(f)
        #expect(problems.map(\.code) == (essential ? [] : [.conformanceLselNotEssential]), "\(problems)")
        #expect(problems.allSatisfy { $0.message.hasSuffix("§6.5.11.1)") })
    }
}

@Test func clliAndMdcvHaveTheirSizeAndLiveInIpco() {
    let display = MasteringDisplay(
        primaries: [1, 2, 3, 4, 5, 6], whitePointX: 7, whitePointY: 8, maxLuminance: 9, minLuminance: 1)
    let cases: [(String, Property, [FindingCode])] = [
        ("a clli of 12 bytes", .clli(maxCLL: 1000, maxPALL: 400), []),
        ("an mdcv of 32 bytes", .mdcv(display), []),
        ("a clli of 14 bytes", .unknown(type: "clli", body: [3, 232, 1, 144, 0, 0]), [.conformanceClliInvalid]),
        (
            "an mdcv of 30 bytes", .unknown(type: "mdcv", body: Array(repeating: 1, count: 22)),
            [.conformanceMdcvInvalid]
        ),
    ]
    for (name, property, codes) in cases {
        let f = Build.file { b, p in b.setProperties(of: p, Build.image(256, 256, [(property, false)])) }
        let problems = HEIFConformance.problems(f)
        #expect(problems.map(\.code) == codes, "\(name): \(problems.map(\.message))")
        #expect(problems.allSatisfy { $0.message.contains("§7.4.4.") }, "\(name)")
    }
    // A well-formed clli at the top level of the file, outside ipco.
    let bytes = HEIFBuilder(brands: Build.brands).build() + [0, 0, 0, 12] + Array("clli".utf8) + [3, 232, 1, 144]
    let problems = HEIFConformance.problems(HEIFFile(bytes: bytes))
    #expect(problems.map(\.code) == [.conformanceClliInvalid], "\(problems.map(\.message))")
    #expect(problems.first?.actual == "inside no box (top level)")
}

@Test func aPrimaryGridOverTheLimitNeedsASmallerAlternative() {
    let profile = Brands(major: "heic", compatible: ["mif1", "miaf", "MiHB", "heic"])
    // Two 8192×8192 tiles: 134 217 728 pixels, over MIAF §8.4's 128 000 000.
    func file(brands: Brands = profile, _ extra: (inout HEIFBuilder, UInt32) -> Void = { _, _ in }) -> HEIFFile {
        Build.file(
            { b, _ in
                let g = b.addGrid(
                    columns: 2, rows: 1, outputWidth: 16384, outputHeight: 8192,
                    tiles: [(Build.image(8192, 8192), [1]), (Build.image(8192, 8192), [2])],
                    properties: [(.pixi(bitsPerChannel: [8, 8, 8]), false)])
                b.setPrimary(g.grid)
                extra(&b, g.grid)
            }, brands: brands)
    }
    let alone = HEIFConformance.problems(file())
    #expect(alone.map(\.code) == [.conformanceGridLimit], "\(alone.map(\.message))")
    #expect(alone.first?.message.hasSuffix("(MIAF ISO/IEC 23000-22 §8.4)") == true)
    // Without a MIAF profile brand the constraint is not adopted.
    #expect(Build.codes(file(brands: Build.brands)).isEmpty)
    // A 1200×600 thumbnail (within the factor 200 of §7.3.3) is the smaller alternative.
    let thumbnail = file { b, g in
        let t = b.addCodedImage(properties: Build.image(1200, 600), data: [3])
        b.addReference(type: "thmb", from: t, to: [g])
    }
    #expect(Build.codes(thumbnail).isEmpty, "\(HEIFConformance.problems(thumbnail).map(\.message))")
    // An alternative grid of one 512×256 tile is within the count but 1024× smaller.
    let tooSmall = file { b, g in
        let a = b.addGrid(
            columns: 1, rows: 1, outputWidth: 512, outputHeight: 256, tiles: [(Build.image(512, 256), [4])],
            properties: [(.pixi(bitsPerChannel: [8, 8, 8]), false)], hidden: true)
        b.addEntityGroup(type: "altr", entities: [g, a.grid])
    }
    let ratio = HEIFConformance.problems(tooSmall)
    #expect(ratio.map(\.code) == [.conformanceGridLimit] && ratio.first?.actual == "1024×", "\(ratio.map(\.message))")
}

@Test func miabAllowsAVCHighProfileUpToLevel52() {
    let miab = Brands(major: "avci", compatible: ["mif1", "miaf", "MiAB", "avci"])
    for (profile, level, codes) in [
        (100, 52, []), (110, 40, [FindingCode.conformanceProfileMiAB]), (100, 60, [.conformanceProfileMiAB]),
    ] {
        let f = Build.file(
            { b, _ in
                let avcC = Property.unknown(type: "avcC", body: [1, UInt8(profile), 0, UInt8(level), 0xFF, 0xE0, 0])
                b.addCodedImage(type: "avc1", properties: [(avcC, true)] + Build.image(), data: [1], hidden: true)
            }, brands: miab)
        let problems = HEIFConformance.problems(f)
        #expect(problems.map(\.code) == codes, "\(profile) \(level): \(problems.map(\.message))")
        #expect(problems.allSatisfy { $0.message.hasSuffix("§A.6)") })
    }
}

@Test func miprWantsMetaFirstAThumbnailBeforeThePrimaryAndEarlyData() {
    let mipr = Brands(major: "heic", compatible: ["mif1", "miaf", "MiPr", "heic"])
    /// A MiPr file: the thumbnail's data first unless `thumbnailLast`, the primary's `primaryBytes` long.
    func file(thumbnail: Bool = true, thumbnailLast: Bool = false, primaryBytes: Int = 4, brands: Brands = mipr)
        -> [UInt8]
    {
        var b = HEIFBuilder(brands: brands)
        func addThumbnail(_ p: UInt32) {
            let t = b.addCodedImage(properties: Build.image(128, 128), data: [9, 9], hidden: true)
            b.addReference(type: "thmb", from: t, to: [p])
        }
        var p: UInt32 = 0
        if thumbnail && !thumbnailLast {
            // The thumbnail is added (and placed) first, its reference to the primary once that has an id.
            let t = b.addCodedImage(properties: Build.image(128, 128), data: [9, 9], hidden: true)
            p = b.addCodedImage(properties: Build.image(), data: [UInt8](repeating: 1, count: primaryBytes))
            b.addReference(type: "thmb", from: t, to: [p])
        } else {
            p = b.addCodedImage(properties: Build.image(), data: [UInt8](repeating: 1, count: primaryBytes))
            if thumbnail { addThumbnail(p) }
        }
        b.setPrimary(p)
        return b.build()
    }
    func problems(_ bytes: [UInt8]) -> [HEIFConformance.Problem] {
        HEIFConformance.problems(HEIFFile(bytes: bytes))
    }
    #expect(problems(file()).isEmpty, "\(problems(file()).map(\.message))")
    // Without the brand none of this is asked.
    #expect(problems(file(thumbnail: false, brands: Build.brands)).isEmpty)
    #expect(problems(file(thumbnail: false)).map(\.code) == [.conformanceMiPrThumbnail])
    #expect(problems(file(thumbnailLast: true)).map(\.code) == [.conformanceMiPrThumbnail])
    // A 200 000-byte primary with its thumbnail after it: nothing ends within 128 000 bytes.
    let late = problems(file(thumbnailLast: true, primaryBytes: 200_000))
    #expect(late.map(\.code) == [.conformanceMiPrThumbnail, .conformanceMiPrEarlyData], "\(late.map(\.message))")
    // The same primary with its thumbnail first: the thumbnail is the early data.
    #expect(problems(file(primaryBytes: 200_000)).isEmpty)
    // A free box after mdat, and a second one: the box order.
    let free: [UInt8] = [0, 0, 0, 8] + Array("free".utf8)
    let after = problems(file() + free)
    #expect(after.map(\.code) == [.conformanceMiPrBoxOrder], "\(after.map(\.message))")
    #expect(after.allSatisfy { $0.message.hasSuffix("(MIAF ISO/IEC 23000-22 §10.2)") })
    #expect(problems(file() + free + free).first?.actual.contains("2 top-level free-space boxes") == true)
}

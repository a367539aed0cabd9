import Audit
import Findings
import Foundation
import GainMap
import TestSupport
import Testing

/// Gain maps judged in JPEG outputs and across containers, on the generated files of `Corpus/jpeg` (built from
/// generated pixels by CorpusKit's `JPEGGainMapCorpus`).
struct JPEGGainMapAuditTests {
    static let jpeg = Repo.root.appendingPathComponent("Corpus/jpeg")
    static let heic = Repo.root.appendingPathComponent("Corpus/heic")

    static func audit(_ source: URL?, _ output: URL, decode: Bool = true) -> [Finding] {
        FileAuditor(options: AuditOptions(decode: decode), decoders: .inProcess).audit(
            AuditJob(name: output.lastPathComponent, source: source, output: output)
        ).findings
    }

    static func errors(_ f: [Finding]) -> Set<String> { Set(f.filter { $0.severity == .error }.map(\.code.rawValue)) }

    /// The mutations listed in `Corpus/jpeg/mutations/MUTATIONS`: (file, code).
    static func mutations() throws -> [(String, String)] {
        let text = try String(contentsOf: jpeg.appendingPathComponent("mutations/MUTATIONS"), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map {
            let c = $0.split(separator: "\t").map(String.init)
            return (c[0], c[1])
        }
    }

    /// Each generated mutation, audited alone (no source), raises its code and, for an error code, fails.
    @Test func everyMutationIsCaughtWithItsCode() throws {
        let list = try Self.mutations()
        #expect(list.count == 8)
        for (file, code) in list {
            let f = Self.audit(nil, Self.jpeg.appendingPathComponent("mutations/\(file)"))
            let hit = f.filter { $0.code.rawValue == code }
            #expect(!hit.isEmpty, "\(file): \(f.map(\.code))")
            let expected = FindingCode(rawValue: code)?.severity
            #expect(hit.allSatisfy { $0.severity == expected }, "\(file): \(hit)")
            // Nothing else in the gain map fails but what the mutation broke (data-missing follows an absent image).
            let others = Self.errors(f).subtracting([code, FindingCode.gainmapDataMissing.rawValue])
            #expect(others.isEmpty, "\(file): \(others)")
        }
    }

    /// The faithful files in each form, audited against themselves: no error, one gain-map result per form.
    @Test(arguments: ["ultrahdr", "iso21496", "apple"])
    func completeFilesAuditClean(_ name: String) throws {
        let url = Self.jpeg.appendingPathComponent("\(name).jpg")
        let report = FileAuditor(options: AuditOptions(decode: true), decoders: .inProcess).audit(
            AuditJob(name: name, source: url, output: url))
        #expect(Self.errors(report.findings).isEmpty, "\(report.findings)")
        #expect(report.gainMaps.count == 1, "\(report.gainMaps)")
        #expect(report.gainMaps.allSatisfy { $0.data == .pass && $0.metadata == .pass && $0.description == .pass })
        #expect(!report.findings.contains { $0.code.rawValue.hasPrefix("gainmap.") }, "\(report.findings)")
    }

    /// An iPhone-style HEIC (tmap + Apple aux) converted to a JPEG without a gain map: `gainmap.missing`.
    @Test func heicToJPEGWithoutGainMapIsMissing() {
        let f = Self.audit(Self.heic.appendingPathComponent("good.heic"), Self.jpeg.appendingPathComponent("plain.jpg"))
        #expect(Self.errors(f).contains(FindingCode.gainmapMissing.rawValue), "\(f)")
    }

    /// An Ultra HDR JPEG re-saved with its primary only, and an Apple JPEG gain map re-encoded without it: the gate
    /// fails on `gainmap.missing`.
    @Test(arguments: ["ultrahdr", "apple", "iso21496"])
    func jpegResavedWithoutGainMapIsMissing(_ name: String) {
        let f = Self.audit(
            Self.jpeg.appendingPathComponent("\(name).jpg"), Self.jpeg.appendingPathComponent("plain.jpg"))
        #expect(Self.errors(f).contains(FindingCode.gainmapMissing.rawValue), "\(f)")
    }

    /// A JPEG declaring its gain map (hdrgm, GContainer, MPF) but cut after the primary fails against itself.
    @Test func declaredButAbsentFailsAgainstItself() {
        let url = Self.jpeg.appendingPathComponent("mutations/trailer-dropped.jpg")
        let f = Self.audit(url, url)
        #expect(Self.errors(f).contains(FindingCode.gainmapJpegImageAbsent.rawValue), "\(f)")
    }

    /// The other direction: a JPEG with a gain map converted to a HEIC without one.
    @Test func jpegToHEICWithoutGainMapIsMissing() {
        let f = Self.audit(
            Self.jpeg.appendingPathComponent("ultrahdr.jpg"),
            Self.heic.appendingPathComponent("mutations/gainmap.missing.heic"), decode: false)
        #expect(Self.errors(f).contains(FindingCode.gainmapMissing.rawValue), "\(f)")
    }

    /// A gain map carried in another form (Apple → Ultra HDR, ISO → Ultra HDR) with the same headroom: an info,
    /// not a loss, and no metadata change.
    @Test(arguments: ["apple", "iso21496"])
    func formChangeIsInfo(_ name: String) {
        let f = Self.audit(
            Self.jpeg.appendingPathComponent("\(name).jpg"), Self.jpeg.appendingPathComponent("ultrahdr.jpg"))
        #expect(f.filter { $0.code == .gainmapFormChanged }.map(\.severity) == [.info], "\(f)")
        #expect(!f.contains { $0.code == .gainmapMetadataChanged }, "\(f)")
        #expect(Self.errors(f).isEmpty, "\(f)")
    }

    /// `--formats heic,avif,jpeg` reads `.jpg`/`.jpeg` outputs; the default does not.
    @Test func formatsChooseTheOutputs() throws {
        let all = try Pairing.outputsOnly(Self.jpeg, extensions: try Pairing.extensions(formats: "heic,avif,jpeg"))
        #expect(all.jobs.count == 12, "\(all.jobs.map(\.name))")
        #expect(try Pairing.outputsOnly(Self.jpeg).jobs.isEmpty)
        #expect(throws: Pairing.Failure.self) { try Pairing.extensions(formats: "png") }
    }
}

/// The pair comparison of two gain maps' parameters.
@Test func gainMapParametersComparedAcrossFiles() throws {
    func facts(_ xmp: String, forms: [GainMapForm] = [.ultraHDR]) throws -> GainMapFacts {
        let x = try #require(AdobeGainMapXMP.parse(Array(xmp.utf8)))
        return GainMapFacts(forms: Set(forms.map(GainMapFacts.family)), metadata: x.isoMetadata)
    }
    let ns = "xmlns:hdrgm=\"http://ns.adobe.com/hdr-gain-map/1.0/\""
    let a = try facts(
        "<x \(ns) hdrgm:Version=\"1.0\" hdrgm:GainMapMax=\"2\" hdrgm:HDRCapacityMax=\"2\" hdrgm:Gamma=\"1\"/>")
    let same = try facts("<x \(ns) hdrgm:Version=\"1.0\" hdrgm:GainMapMax=\"2\" hdrgm:HDRCapacityMax=\"2\"/>")
    let lower = try facts("<x \(ns) hdrgm:Version=\"1.0\" hdrgm:GainMapMax=\"1\" hdrgm:HDRCapacityMax=\"1\"/>")
    let hdrBase = try facts(
        "<x \(ns) hdrgm:Version=\"1.0\" hdrgm:GainMapMax=\"2\" hdrgm:HDRCapacityMax=\"2\" hdrgm:BaseRenditionIsHDR=\"True\"/>"
    )
    let gamma = try facts(
        "<x \(ns) hdrgm:Version=\"1.0\" hdrgm:GainMapMax=\"2\" hdrgm:HDRCapacityMax=\"2\" hdrgm:Gamma=\"2.2\"/>")
    #expect(GainMapFacts.compare(source: a, output: same).isEmpty)
    for (o, words) in [(lower, "HDR headroom"), (hdrBase, "base rendition"), (gamma, "gamma")] {
        let f = GainMapFacts.compare(source: a, output: o)
        #expect(f.map(\.code) == [.gainmapMetadataChanged], "\(f)")
        #expect(f.first?.message.contains(words) == true, "\(f)")
        #expect(f.first?.severity == .warning)
    }
}

import ColorScience
import Foundation
import MetadataIO
import Testing

@testable import Metadata

/// Values compared as values: the same value re-encoded, a rounding within the source's printed precision, a change.
@Test func numbersCompareAsValuesUnderTheirTagRule() {
    let direction = TagTables.rule(for: FieldKey(group: "GPS", name: "GPSImgDirection"))
    // exiftool re-derives the rational from its float: 274.8439941 → 274.8439938 is the same value.
    let a = MetadataValue.rationals([Rational(1_125_761, 4096)])
    #expect(a.compared(with: .rationals([Rational(176_175, 641)]), rule: direction) == .reencoded)
    #expect(a.compared(with: a, rule: direction) == .identical)
    // Rationals are held reduced: 10/1000 is 1/100, the same value in the same representation.
    #expect(MetadataValue.rationals([Rational(1, 100)]).compared(with: .rationals([Rational(10, 1000)])) == .identical)
    // A rational written as a real is the same value re-encoded.
    #expect(MetadataValue.rationals([Rational(1, 4)]).compared(with: .reals([0.25])) == .reencoded)
    // A degree off is a change.
    #expect(a.compared(with: .rationals([Rational(275_844, 1000)]), rule: direction) == .changed)

    // FocalLength prints with one decimal: 4.38 → 4.4 is what `-tagsFromFile` writes back; 4.38 → 4.6 is a change.
    let focal = FieldKey(group: "ExifIFD", name: "FocalLength")
    let f = MetadataValue.rationals([Rational(438, 100)])
    #expect(f.compared(with: .rationals([Rational(44, 10)]), rule: TagTables.rule(for: focal)) == .rounded)
    #expect(f.compared(with: .rationals([Rational(46, 10)]), rule: TagTables.rule(for: focal)) == .changed)
    #expect(f.printed(rule: TagTables.rule(for: focal)) == "4.4")

    // ExposureTime 0.029994 → 1/33: both print as 1/33.
    let exposure = FieldKey(group: "ExifIFD", name: "ExposureTime")
    let t = MetadataValue.rationals([Rational(29994, 1_000_000)])
    #expect(t.compared(with: .rationals([Rational(1, 33)]), rule: TagTables.rule(for: exposure)) == .rounded)
    #expect(t.compared(with: .rationals([Rational(1, 60)]), rule: TagTables.rule(for: exposure)) == .changed)

    // A tag without a print rule has no rounding band: 1.039999962 and 1.04 differ beyond 1e-6.
    let speed = TagTables.rule(for: FieldKey(group: "GPS", name: "GPSSpeed"))
    let s = MetadataValue.rationals([Rational(1_039_999_962, 1_000_000_000)])
    #expect(s.compared(with: .reals([1.039999962]), rule: speed) == .reencoded)
    #expect(s.compared(with: .rationals([Rational(105, 100)]), rule: speed) == .changed)

    // 0/0 (an unknown coordinate, as phones write it) is itself.
    let zero = MetadataValue.rationals([Rational(0, 0), Rational(0, 0), Rational(0, 0)])
    #expect(zero.compared(with: zero, rule: .coordinate) == .identical)
}

@Test func textComparesAfterPaddingIsTrimmed() {
    #expect(MetadataValue.text("Canon\0\0\0").compared(with: .text("Canon  ")) == .identical)
    #expect(MetadataValue.text("Canon").compared(with: .text("Nikon")) == .changed)
    // base64 wrapped at another width by an XMP writer.
    #expect(MetadataValue.text("QUJD\nREVG").compared(with: .text("QUJDREVG")) == .reencoded)
}

/// Through the diff: the severities the issue asks for.
@Test func diffGivesEachValueClassItsSeverity() throws {
    let src = TIFFBuilder.camera()
    var out = TIFFBuilder.camera()
    // FocalLength 50 → 50.04 prints as 50.0 under exiftool's %.1f: rounded (warning, both values shown).
    out.exif[7] = .init(tag: 0x920A, value: .rational([(5004, 100)]))
    // FNumber 2.8 re-derived from a float as 28000001/10000000: the same value re-encoded (info).
    out.exif[1] = .init(tag: 0x829D, value: .rational([(28_000_001, 10_000_000)]))
    let d = Diff.compare(
        source: try metadataSet(src, label: "src"), output: try metadataSet(out, label: "out"), policy: .standard)
    let focal = try #require(d.findings.first { $0.key?.description == "ExifIFD:FocalLength" })
    #expect(focal.code == .metadataRounded && focal.severity == .warning)
    #expect(focal.evidence?.expected != nil && focal.evidence?.actual != nil && focal.message.contains("50.0"))
    let fnumber = try #require(d.findings.first { $0.key?.description == "ExifIFD:FNumber" })
    #expect(fnumber.code == .metadataReencoded && fnumber.severity == .info)
    #expect(!d.hasSeriousLoss)
    // FocalLength 50 → 55: an error on a critical field.
    out.exif[7] = .init(tag: 0x920A, value: .rational([(55, 1)]))
    let d2 = Diff.compare(
        source: try metadataSet(src, label: "src"), output: try metadataSet(out, label: "out"), policy: .standard)
    #expect(d2.findings.contains { $0.code == .metadataChanged && $0.severity == .error })
}

/// A MakerNote exiv2 parses compares tag by tag: a rewrite that only moved offsets (a different size) is no change.
@Test func makerNoteComparesByContent() {
    let tags: [String: MetadataValue] = ["Canon.ModelID": .integers([0x8000_0428]), "CanonCs.Macro": .integers([2])]
    let s = MakerNoteInfo(
        vendor: "Canon", recognisedBy: "exiv2", decodedTagCount: 2, blob: nil, length: 1602, tags: tags)
    let moved = MakerNoteInfo(
        vendor: "Canon", recognisedBy: "exiv2", decodedTagCount: 2, blob: nil, length: 1606, tags: tags)
    let (change, note) = Diff.makerNoteChanges(s, moved)
    #expect(change == nil)
    #expect(note?.contains("1602 → 1606 bytes") == true)
    var other = tags
    other["CanonCs.Macro"] = .integers([1])
    let changed = MakerNoteInfo(
        vendor: "Canon", recognisedBy: "exiv2", decodedTagCount: 2, blob: nil, length: 1602, tags: other)
    #expect(Diff.makerNoteChanges(s, changed).0?.contains("CanonCs.Macro") == true)
    // Not parsed (Apple): present on both sides is kept, with a size note.
    let apple = MakerNoteInfo(vendor: "Apple", recognisedBy: "header", decodedTagCount: 0, blob: nil, length: 1678)
    let apple2 = MakerNoteInfo(vendor: "Apple", recognisedBy: "header", decodedTagCount: 0, blob: nil, length: 1670)
    let (c2, n2) = Diff.makerNoteChanges(apple, apple2)
    #expect(c2 == nil && n2?.contains("1678 → 1670") == true)
}

/// The MakerNote's preview tags are judged by content: classified apart from the tags compared one by one, and when
/// the output lacks them, one known loss names them; a real tag that changed beside them is still a change.
@Test func makerNotePreviewTagsAreAKnownLossNotAChange() throws {
    for (group, name) in [
        ("Nikon3", "Preview"), ("NikonPreview", "JPEGInterchangeFormat"), ("NikonPreview", "XResolution"),
        ("SamsungPreview", "Compression"), ("Pentax", "PreviewOffset"), ("Pentax", "PreviewLength"),
        ("OlympusCs", "PreviewImageValid"), ("Olympus", "ThumbnailImage"), ("Olympus", "ThumbnailOffset"),
    ] {
        #expect(EntryDecoder.isMakerNotePreview(group: group, name: name), "\(group).\(name)")
    }
    for (group, name) in [("Nikon3", "ISOSettings"), ("Pentax", "PreviewResolution"), ("Canon", "CRWParam")] {
        #expect(!EntryDecoder.isMakerNotePreview(group: group, name: name), "\(group).\(name)")
    }
    let tags: [String: MetadataValue] = ["Nikon3.ISOSettings": .integers([0, 200]), "NikonSi02xx.0x027a": .text("x")]
    let previews: Set<String> = ["Nikon3.Preview", "NikonPreview.JPEGInterchangeFormat"]
    func note(_ t: [String: MetadataValue], _ p: Set<String>) -> MakerNoteInfo {
        MakerNoteInfo(
            vendor: "Nikon", recognisedBy: "header", decodedTagCount: t.count + p.count, blob: nil, length: 9000,
            tags: t, previewTags: p)
    }
    // Readback's own-output policy: the MakerNote is not a known loss as a whole.
    var policy = MetadataPolicy.standard
    (policy.knownLosses, policy.knownLossGroups, policy.knownLossPatterns) = ([], [], [])
    let dropped = try #require(Diff.makerNote(note(tags, previews), note(tags, []), policy: policy))
    #expect(dropped.entry.diffClass == .kept)
    let loss = try #require(dropped.findings.first)
    #expect(dropped.findings.count == 1)
    #expect(loss.code == .metadataKnownLoss && loss.severity == .info)
    #expect(loss.message.contains("Nikon3.Preview") && loss.message.contains("NikonPreview.JPEGInterchangeFormat"))
    // Carried: no finding at all.
    #expect(try #require(Diff.makerNote(note(tags, previews), note(tags, previews), policy: policy)).findings.isEmpty)
    // A content tag missing beside the previews is still a change that keeps the original.
    let lost = try #require(
        Diff.makerNote(note(tags, previews), note(["Nikon3.ISOSettings": .integers([0, 200])], []), policy: policy))
    #expect(lost.entry.diffClass == .changed)
    #expect(lost.findings.contains { $0.code == .metadataChanged && $0.message.contains("NikonSi02xx.0x027a") })
    #expect(lost.findings.contains { $0.code == .metadataKnownLoss })
}

/// Orientation by reader model, from tags and coded sizes.
@Test func orientationIsJudgedByReaderModel() {
    func heif(_ irot: Int, exif: Int?, _ w: Int, _ h: Int) -> OrientationInfo {
        OrientationInfo(exif: exif, heifTransform: irot, hasTransform: irot != 1, codedWidth: w, codedHeight: h)
    }
    func judge(_ s: OrientationInfo, _ o: OrientationInfo, _ e: OrientationEvidence = .none) -> OrientationJudgement {
        OrientationJudgement.judge(source: s, output: o, evidence: e, assumedUpright: nil)
    }
    // Apple's layout (irot 270° = Exif 6, plus Exif 6) against itself: kept, consistent, no double rotation.
    let apple = heif(6, exif: 6, 4032, 3024)
    let same = judge(apple, apple, OrientationEvidence(sameCodedPixels: true))
    #expect(same.verdict == .kept && !same.inconsistent && !same.introducesDoubleRotation)
    #expect(Diff.orientationFindings(same, evidence: .none).isEmpty)
    // The irot dropped, Exif 6 kept, the same coded pixels: a HEIF reader shows it sideways.
    let dropped = judge(apple, heif(1, exif: 6, 4032, 3024), OrientationEvidence(sameCodedPixels: true))
    #expect(dropped.verdict == .changed && dropped.inconsistent)
    // irot kept, Exif reset to 1: shown right by HEIF readers, sideways by Exif-only ones.
    let reset = judge(apple, heif(6, exif: 1, 4032, 3024), OrientationEvidence(sameCodedPixels: true))
    #expect(reset.verdict == .kept && reset.inconsistent)
    // Upright pixels (portrait coded raster), no irot, Exif 6 kept: HEIF readers right, Exif-only readers wrong.
    let baked = judge(apple, heif(1, exif: 6, 3024, 4032))
    #expect(baked.verdict == .kept && baked.inconsistent)
    // Upright pixels and Exif 1: a good converter.
    let good = judge(apple, heif(1, exif: 1, 3024, 4032))
    #expect(good.verdict == .kept && !good.inconsistent)
    // A JPEG with Exif 6 into a HEIF with irot 6 and Exif 6 over the same coded pixels: a new pairing, at most info.
    let jpeg = OrientationInfo(exif: 6, codedWidth: 4000, codedHeight: 3000)
    let paired = judge(jpeg, heif(6, exif: 6, 4000, 3000))
    #expect(paired.verdict == .kept && paired.introducesDoubleRotation)
    let f = Diff.orientationFindings(paired, evidence: .none)
    #expect(f.map(\.code) == [.orientationDoubleRotation] && f.allSatisfy { $0.severity == .info })
    // Pixels decide over tags.
    let turned = judge(apple, apple, OrientationEvidence(shownTransform: 6, note: "test"))
    #expect(turned.verdict == .changed && turned.transform == ExifOrientation(exif: 6))
}

import Findings
import Testing

@testable import HEIF

/// One constructed case per finding code: (code, file bytes, limits).
func findingCases() -> [(code: String, bytes: [UInt8], limits: Limits)] {
    var cases: [(String, [UInt8], Limits)] = []
    func add(_ code: String, _ bytes: [UInt8], _ limits: Limits = .default) { cases.append((code, bytes, limits)) }
    func built(_ edit: (inout HEIFBuilder, [String: UInt32]) -> Void) -> [UInt8] {
        var (b, ids) = Samples.gainMapBuilder()
        edit(&b, ids)
        return b.build()
    }
    let simple = Samples.simpleBuilder().0.build()
    let meta1 = { (children: [[UInt8]]) in V.ftyp() + V.meta(children) }
    let base: [[UInt8]] = [V.hdlr, V.pitm(1), V.iinf([V.infe(1, "hvc1")])]
    let props = V.iprp([V.ispe(1, 1)], V.ipma([(1, [(1, false)])]))

    add("container.box.truncated", V.ftyp() + V.u32(500) + V.cc("meta") + [0, 0, 0, 0])
    add("container.box.invalid-size", V.ftyp() + V.u32(4) + V.cc("free"))
    add("container.box.malformed", meta1([V.hdlr, V.full("pitm", 0, 0, [1]), V.iinf([])]))
    add("container.file.trailing-bytes", simple + [1, 2, 3])
    add("container.ftyp.missing", V.meta(base))
    add("container.brand.mif1.missing", V.ftyp("heic", ["heic"]) + Array(simple.dropFirst(V.ftyp().count)))
    add("container.meta.missing", V.ftyp())
    add("container.meta.duplicate", meta1(base) + V.meta(base))
    add(
        "container.hdlr.not-pict",
        meta1([V.full("hdlr", 0, 0, V.u32(0) + V.cc("vide") + V.u32(0) + V.u32(0) + V.u32(0) + [0])] + base.dropFirst())
    )
    add("container.box.duplicate", meta1(base + [V.pitm(1)]))
    add("container.pitm.missing", built { b, _ in b.setPrimary(nil) })
    add("container.pitm.dangling", built { b, _ in b.setPrimary(999) })
    add("container.pitm.hidden", built { b, ids in b.updateItem(ids["grid"]!) { $0.hidden = true } })
    add("container.iinf.missing", meta1([V.hdlr, V.pitm(1)]))
    add("container.item.duplicate-id", meta1([V.hdlr, V.pitm(1), V.iinf([V.infe(1, "hvc1"), V.infe(1, "Exif")])]))
    add("container.item.no-location", meta1(base + [props]))
    add("container.ispe.missing", built { b, ids in b.removeProperties("ispe", of: ids["gm"]!) })
    var cut = simple
    cut.removeLast(3)
    add("container.iloc.extent-past-eof", cut)
    add("container.iloc.unsupported", meta1(base + [V.iloc([(1, 2, [(0, 1)])]), props]))
    add("container.iloc.unknown-item", meta1(base + [V.iloc([(1, 1, []), (7, 1, [])]), props, V.box("idat", [0])]))
    add("container.iref.missing-item", built { b, ids in b.addReference(type: "thmb", from: ids["thumb"]!, to: [999]) })
    add(
        "container.iref.dimg-duplicate",
        built { b, ids in
            b.setReferences(b.references + [ItemReference(type: "dimg", from: ids["grid"]!, to: [ids["t1"]!])])
        })
    add(
        "container.iref.cdsc-multi-target",
        built { b, ids in b.addReference(type: "cdsc", from: ids["exif"]!, to: [ids["tmap"]!]) }
    )
    add(
        "container.iref.auxl-multi-target",
        built { b, ids in b.addReference(type: "auxl", from: ids["gm"]!, to: [ids["tmap"]!]) })
    add(
        "container.ipma.index-out-of-range",
        meta1(base + [V.iloc([(1, 1, [])]), V.iprp([V.ispe(1, 1)], V.ipma([(1, [(1, false), (5, false)])]))]))
    add(
        "container.ipma.unknown-item",
        meta1(base + [V.iloc([(1, 1, [])]), V.iprp([V.ispe(1, 1)], V.ipma([(1, [(1, false)]), (8, [(1, false)])]))]))
    add(
        "container.ipma.duplicate-item",
        meta1(base + [V.iloc([(1, 1, [])]), V.iprp([V.ispe(1, 1)], V.ipma([(1, [(1, false)]), (1, [(1, false)])]))]))
    add(
        "container.property.malformed",
        meta1(base + [V.iloc([(1, 1, [])]), V.iprp([V.full("ispe", 0, 0, [1, 2])], V.ipma([(1, [(1, false)])]))]))
    add(
        "container.property.not-essential",
        built { b, ids in
            b.setProperties(
                of: ids["t1"]!,
                [(Samples.hvcC(), true), (.ispe(width: 64, height: 64), false), (.irot(quarterTurns: 1), false)])
        })
    add(
        "container.property.transform-before-ispe",
        built { b, ids in
            b.setProperties(
                of: ids["t1"]!,
                [(Samples.hvcC(), true), (.irot(quarterTurns: 1), true), (.ispe(width: 64, height: 64), false)])
        })
    add(
        "container.grid.invalid", built { b, ids in b.addReference(type: "dimg", from: ids["grid"]!, to: [ids["t1"]!]) }
    )
    add("container.tmap.brand-without-item", built { b, ids in b.removeItem(ids["tmap"]!) })
    add("container.tmap.item-without-brand", built { b, _ in b.brands.compatible.removeAll { $0 == "tmap" } })
    add(
        "container.tmap.inputs",
        built { b, ids in
            b.removeReferences(type: "dimg", from: ids["tmap"]!)
            b.addReference(type: "dimg", from: ids["tmap"]!, to: [ids["grid"]!])
        })
    add(
        "container.altr.order",
        built { b, ids in b.setGroups([EntityGroup(type: "altr", id: 500, entities: [ids["grid"]!, ids["tmap"]!])]) })
    add(
        "container.exif.bad-offset",
        built { b, ids in b.replacePayload(of: ids["exif"]!, with: [0, 0, 0, 9] + Samples.tiff) })
    var tight = Limits.default
    tight.maxItems = 3
    add("container.limits.exceeded", Samples.gainMapBuilder().0.build(), tight)
    return cases
}

@Test func everyFindingCodeHasATriggeringCase() {
    let covered = Set(findingCases().map(\.code))
    // The parser's codes: the catalogue's container codes but the audit's own `container.truncated` and
    // `container.unsupported-essential`.
    let parser = FindingCode.allCases.filter {
        $0.topic == .container && $0 != .containerTruncated && $0 != .containerUnsupportedEssential
    }
    let documented = Set(parser.map(\.rawValue))
    #expect(
        covered == documented,
        "uncovered: \(documented.subtracting(covered).sorted()), undocumented: \(covered.subtracting(documented).sorted())"
    )
    #expect(documented.count == parser.count, "codes are unique")
}

@Test(arguments: findingCases().map(\.code))
func findingIsReported(_ code: String) throws {
    let c = try #require(findingCases().first { $0.code == code })
    let f = HEIFFile(bytes: c.bytes, limits: c.limits)
    let hit = f.findings.first { $0.code.rawValue == code }
    #expect(hit != nil, "\(code) not in \(f.findings)")
    #expect(hit?.severity == FindingCode(rawValue: code)?.severity)
    #expect(hit.map { !$0.message.isEmpty && !$0.message.contains("\n") } == true)
    #expect(f.serialize() == c.bytes)
}

@Test func cleanBuiltFilesHaveNoFindings() {
    #expect(HEIFFile(bytes: Samples.gainMapBuilder().0.build()).findings.isEmpty)
    #expect(HEIFFile(bytes: Samples.simpleBuilder().0.build()).findings.isEmpty)
}

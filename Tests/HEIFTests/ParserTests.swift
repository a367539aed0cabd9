import Testing
@testable import HEIF

@Test func simpleFileParsesCleanly() {
    let f = HEIFFile(bytes: V.simpleFile())
    #expect(f.findings.isEmpty, "\(f.findings)")
    #expect(f.brands?.major == "heic")
    #expect(f.brands?.compatible == ["mif1", "heic"])
    #expect(f.primaryItemID == 1)
    #expect(f.items.map(\.type) == ["hvc1"])
    #expect(f.payload(of: 1) == [1, 2, 3, 4, 5])
    #expect(f.imageSize(of: 1)! == (64, 48))
    #expect(f.boxes.map(\.type) == ["ftyp", "meta", "mdat"])
    #expect(f.boxes[1].children.map(\.type) == ["hdlr", "pitm", "iinf", "iloc", "iprp"])
    #expect(f.serialize() == f.bytes)
}

@Test func fourCCDescribesUnprintableBytes() {
    #expect(FourCC("hvc1").description == "hvc1")
    #expect(FourCC(0x0041_4243).description == "\\x00ABC")
    #expect(FourCC(string: "abc") == nil)
}

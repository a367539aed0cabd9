import Testing
@testable import Converter

// Placeholder until this module's issue lands: proves the target builds and links.
@Test func converterModuleLinks() {
    #expect(String(describing: ConverterModule.self).isEmpty == false)
}

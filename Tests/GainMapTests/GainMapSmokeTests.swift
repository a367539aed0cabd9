import Testing
@testable import GainMap

// Placeholder until this module's issue lands: proves the target builds and links.
@Test func gainMapModuleLinks() {
    #expect(String(describing: GainMapModule.self).isEmpty == false)
}

import Testing
@testable import HEIF

// Placeholder until this module's issue lands: proves the target builds and links.
@Test func hEIFModuleLinks() {
    #expect(String(describing: HEIFModule.self).isEmpty == false)
}

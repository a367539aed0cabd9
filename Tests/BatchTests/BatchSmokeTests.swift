import Testing
@testable import Batch

// Placeholder until this module's issue lands: proves the target builds and links.
@Test func batchModuleLinks() {
    #expect(String(describing: BatchModule.self).isEmpty == false)
}

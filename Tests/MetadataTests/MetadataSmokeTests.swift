import Testing
@testable import Metadata

// Placeholder until this module's issue lands: proves the target builds and links.
@Test func metadataModuleLinks() {
    #expect(String(describing: MetadataModule.self).isEmpty == false)
}

import Testing
@testable import CorpusKit

// Placeholder until this module's issue lands: proves the target builds and links.
@Test func corpusModuleLinks() {
    #expect(String(describing: CorpusKitModule.self).isEmpty == false)
}

import Testing
@testable import Audit

// Placeholder until this module's issue lands: proves the target builds and links.
@Test func auditModuleLinks() {
    #expect(String(describing: AuditModule.self).isEmpty == false)
}

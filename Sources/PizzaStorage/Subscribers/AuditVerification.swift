/// The result of checking the audit chain.
public struct AuditVerification: Sendable, Equatable {
    /// Whether every entry and every order is consistent.
    public var ok: Bool
    /// How many entries were checked.
    public var entries: Int
    /// The first entry that does not verify, if any.
    public var firstBad: Int64?
    /// What is wrong, for people.
    public var problem: String?
}

import Foundation
public import PizzaTesting

/// A pizzad a test talks to, in a process of its own (``PizzadProcess``) or in the test's (`LiveDaemon`): its
/// files, its log, and what the tests ask of either the same way.
public protocol DaemonUnderTest: Sendable {
    /// The folder it runs in.
    var directory: String { get }
    /// Its control socket.
    var socket: String { get }
    /// Its SQLite database.
    var database: String { get }
    /// Everything it logged so far.
    var output: String { get }
}

extension PizzadProcess: DaemonUnderTest {}

extension DaemonUnderTest {
    /// Runs pizzactl against this daemon, as a user would type it; as `user` (and `group`) through `setpriv`.
    @discardableResult
    public func pizzactl(_ arguments: [String], as user: String? = nil, group: String? = nil) throws -> CommandResult {
        // Sanitizer builds of pizzad share two cores with other suites' loads: give answers more than the usual 10 s.
        let common = ["--socket", socket] + (sanitizerIsActive ? ["--timeout", "120"] : [])
        if let user {
            var setpriv = ["--reuid=\(user)", "--regid=\(group ?? user)", "--clear-groups", Binaries.pizzactl] + common
            setpriv += arguments
            return try run("setpriv", setpriv)
        }
        return try run(Binaries.pizzactl, common + arguments)
    }

    /// The metrics endpoint's port, from the daemon's log line `serving metrics metrics=http://…/metrics`.
    public var metricsPort: Int? { port(in: #"metrics=http://[^ ]*:([0-9]+)/metrics"#, before: "/metrics") }

    /// The board's port, from its "serving board" line.
    public var boardPort: Int? { port(in: #"board=http://[^ ]*:([0-9]+)/board"#, before: "/board") }

    private func port(in pattern: String, before suffix: String) -> Int? {
        let output = output
        guard let range = output.range(of: pattern, options: .regularExpression) else { return nil }
        return Int(output[range].split(separator: ":").last!.dropLast(suffix.count))
    }
}

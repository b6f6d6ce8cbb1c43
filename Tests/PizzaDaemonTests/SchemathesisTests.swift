import DaemonHarness
import Foundation
import PizzaCore
import PizzaTesting
import Testing

/// The order API checked by a tester nobody here wrote: schemathesis (PyPI, pinned in `.ci/run`, installed in
/// `.cache/schemathesis`) runs `docs/openapi.yaml` against a live pizzad, with every check, once per role, its
/// stateful phase following the document's `links`.
@Suite("Order API against its OpenAPI document (schemathesis)", .serialized, .offThePool)
struct SchemathesisTests {
    static let tester = Binaries.repository + "/.cache/schemathesis/bin/st"
    static let installed = FileManager.default.isExecutableFile(atPath: tester)

    @Test(
        "every role: no 5xx, no answer that breaks the document, the stateful phase runs",
        .enabled(if: installed, "schemathesis is not installed in .cache/schemathesis (.ci/run installs it)"))
    func everyRole() throws {
        let port = try freeLoopbackPort()
        // The shipped limits, as a shop runs them: the tester keeps under a device's rate (50 a second) and sends
        // invalid credentials on purpose, which lock its address out for the next failures but never for its
        // valid token (CONTRACT section 15).
        let daemon = try PizzadProcess(config: "api:\n  listen: 127.0.0.1:\(port)\n")
        let roles = ["till", "kitchen", "reader", "platform"]
        var tokens: [String] = []
        for role in roles {
            let added = try daemon.pizzactl(["device", "add", "\(role)-1", "--role", role])
            tokens.append(try #require(added.stdout.split(separator: "\n").last.map(String.init), "\(added)"))
        }
        // The four roles at once, each a device of its own (its own rate), each paced under the device's rate: a
        // quarter of the time one after another took (225 s), on plain threads (a blocking wait for a child). Nine
        // examples an operation: at a device's pace, 25 kept the two cores busy for three minutes of the suite, and 12
        // made this the suite's longest test (171 s beside the booted-systemd test).
        let results = Locked<[Int: CommandResult]>([:])
        let bearers = tokens
        // `/v1/events` is a stream that never ends: schemathesis reads a stream until the request's timeout in all,
        // which made each of its cases cost 5 s (50 s of a reader's 86 s alone, and this the suite's longest test).
        // A second is enough for its headers and its opening lines; every other operation keeps 5 s.
        let settings = daemon.directory + "/schemathesis.toml"
        try Data(
            """
            [[operations]]
            include-path = "/v1/events"
            request-timeout = 1

            """.utf8
        ).write(to: URL(fileURLWithPath: settings))
        DispatchQueue.concurrentPerform(iterations: roles.count) { index in
            // positive_data_acceptance is left out: the menu is configuration, so a kind, crust or extra that the
            // document allows may not be on this shop's menu (400 validation, as the document says).
            let result = try? run(
                Self.tester,
                [
                    "--config-file", settings, "run", Binaries.repository + "/docs/openapi.yaml", "--url",
                    "http://127.0.0.1:\(port)",
                    "-H", "Authorization: Bearer \(bearers[index])", "--checks", "all", "--exclude-checks",
                    "positive_data_acceptance", "--max-examples", "9", "--no-color", "--seed", "20261126",
                    "--rate-limit", "40/s", "--request-timeout", "5",
                ], timeout: 300)
            if let result { results.withLock { $0[index] = result } }
        }
        for (index, role) in roles.enumerated() {
            let result = try #require(results.value[index], "schemathesis as a \(role) did not run")
            let scenarios = result.stdout.split(separator: "\n").first { $0.contains("Scenarios:") }
            print("schemathesis as a \(role): \(scenarios.map { $0.trimmingCharacters(in: .whitespaces) } ?? "?")")
            #expect(result.status == 0, "as a \(role):\n\(result.stdout.suffix(6000))")
            // No operation "mostly returned 429": the limits let a well-behaved client's logic be tested.
            #expect(!result.stdout.contains("rate limit"), "as a \(role), rate limited:\n\(result.stdout.suffix(3000))")
            #expect(result.stdout.contains("✅ Stateful"), "as a \(role), the stateful phase did not pass")
        }
        #expect(!daemon.output.contains("failed unexpectedly") && !daemon.output.contains("internal error"))
        #expect(try daemon.pizzactl(["audit", "verify"]).status == 0)
    }
}

import Foundation
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
        // No limits in the way: the tester sends thousands of requests, and invalid credentials on purpose.
        let daemon = try PizzadProcess(
            config: "api:\n  listen: 127.0.0.1:\(port)\n  requestsPerSecond: 100000\n  lockoutAfterFailures: 100000\n")
        for role in ["till", "kitchen", "reader", "platform"] {
            let added = try daemon.pizzactl(["device", "add", "\(role)-1", "--role", role])
            let token = try #require(added.stdout.split(separator: "\n").last.map(String.init), "\(added)")
            // positive_data_acceptance is left out: the menu is configuration, so a kind, crust or extra that the
            // document allows may not be on this shop's menu (400 validation, as the document says).
            let result = try run(
                Self.tester,
                [
                    "run", Binaries.repository + "/docs/openapi.yaml", "--url", "http://127.0.0.1:\(port)",
                    "-H", "Authorization: Bearer \(token)", "--checks", "all", "--exclude-checks",
                    "positive_data_acceptance", "--exclude-path", "/v1/events", "--max-examples", "25", "--no-color",
                    "--seed", "20261126",
                ], timeout: 300)
            let scenarios = result.stdout.split(separator: "\n").first { $0.contains("Scenarios:") }
            print("schemathesis as a \(role): \(scenarios.map { $0.trimmingCharacters(in: .whitespaces) } ?? "?")")
            #expect(result.status == 0, "as a \(role):\n\(result.stdout.suffix(6000))")
            #expect(result.stdout.contains("✅ Stateful"), "as a \(role), the stateful phase did not pass")
        }
        #expect(!daemon.output.contains("failed unexpectedly") && !daemon.output.contains("internal error"))
        #expect(try daemon.pizzactl(["audit", "verify"]).status == 0)
    }
}

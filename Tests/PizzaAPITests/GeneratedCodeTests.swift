import Crypto
import Foundation
import Testing

@testable import PizzaAPI

/// The code swift-openapi-generator made of docs/openapi.yaml is committed (scripts/generate-openapi), not generated in
/// every build: this is what says when the document changed without it.
@Suite("Order API: the generated code is current")
struct GeneratedCodeTests {
    @Test("Sources/PizzaAPI/Generated was generated from docs/openapi.yaml and its configuration as they are now")
    func current() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        var hasher = SHA256()
        for path in ["docs/openapi.yaml", "Sources/PizzaAPI/Generated/openapi-generator-config.yaml"] {
            hasher.update(data: try Data(contentsOf: root.appendingPathComponent(path)))
        }
        let now = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        #expect(
            now == generatedFromDocument,
            "docs/openapi.yaml or the generator's configuration changed: run scripts/generate-openapi and commit its output"
        )
    }
}

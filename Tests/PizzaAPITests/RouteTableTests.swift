import Foundation
import HTTPTypes
import PizzaHTTPEdges
import Testing

@testable import PizzaAPI

/// The one route table against docs/openapi.yaml: every operation the document names is one entry with the same
/// method and path, and no entry is missing from the document; the generated server registers exactly the entries
/// marked generated.
@Suite("Order API: one route table, the document's")
struct RouteTableTests {
    /// `(operationId, METHOD, path)` of every operation in docs/openapi.yaml, read from its `paths:` section.
    static func documented() throws -> Set<String> {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let text = try String(contentsOf: url.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        var operations: Set<String> = []
        var inPaths = false
        var path: String?
        var method: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") { inPaths = line == "paths:" }
            guard inPaths else { continue }
            let indent = line.prefix { $0 == " " }.count
            let content = line.trimmingCharacters(in: .whitespaces)
            if indent == 2, content.hasSuffix(":") {
                path = String(content.dropLast())
            } else if indent == 4, content.hasSuffix(":") {
                method = String(content.dropLast()).uppercased()
            } else if indent == 6, content.hasPrefix("operationId:"), let path, let method {
                operations.insert(
                    "\(content.dropFirst("operationId:".count).trimmingCharacters(in: .whitespaces)) \(method) \(path)")
            }
        }
        return operations
    }

    @Test("the table and docs/openapi.yaml name the same operations, methods and paths")
    func sameAsDocument() throws {
        let documented = try Self.documented()
        let table = Set(APIRoute.all.map { "\($0.operation.rawValue) \($0.method.rawValue) \($0.path)" })
        #expect(documented.count == APIOperation.allCases.count, "\(documented.sorted())")
        #expect(
            table == documented,
            "only in the table: \(table.subtracting(documented).sorted()); only in the document: \(documented.subtracting(table).sorted())"
        )
        #expect(Set(APIRoute.all.map(\.operation)) == Set(APIOperation.allCases), "an operation twice, or none")
    }

    @Test("the generated server answers exactly the operations marked generated")
    func generated() {
        let generated = Set(APIRoute.all.filter { $0.answered == .generated }.map(\.operation.rawValue))
        #expect(generated == Set([Operations.GetMenu.id]))
    }

    @Test("a route's methods and its right come from the table; a path's id is read once")
    func matching() throws {
        let routes = APIRoute.routes(at: "/v1/orders/12")
        #expect(routes.routes.map(\.operation) == [.getOrder] && routes.id == 12)
        #expect(APIRoute.routes(at: "/v1/orders").routes.map(\.operation) == [.createOrder, .listOrders])
        #expect(APIRoute.routes(at: "/v1/orders/abc").routes.map(\.operation) == [.getOrder])
        #expect(APIRoute.routes(at: "/v1/orders/abc").id == nil)
        #expect(APIRoute.match(.head, "/v1/menu")?.route.operation == .getMenu)
        #expect(APIRoute.match(.delete, "/v1/menu") == nil)
        #expect(APIRoute.all.first { $0.operation == .getDocument }?.right == nil)
        #expect(
            APIRoute.all.filter { $0.right == nil }.map(\.operation) == [.getDocument, .getDayPage],
            "only the document and the day's page (which holds no figures) are open to anyone")
        // A parameter other than an order's id (a menu item's name) is any one segment.
        let item = APIRoute(.getMenu, .put, "/v1/menu/items/{item}/availability", .menu)
        #expect(item.segments.contains(.parameter))
        #expect(item.match("/v1/menu/items/cola-033/availability".utf8) != nil)
        #expect(item.match("/v1/menu/items//availability".utf8) == nil)
    }

    @Test("a named path is its named routes', not also a parameter route's: /v1/reports/z takes POST only")
    func namedBeforeParameter() {
        #expect(APIRoute.routes(at: "/v1/reports/z").routes.map(\.operation) == [.closeDay])
        #expect(APIRoute.routes(at: "/v1/reports/x").routes.map(\.operation) == [.getXReport])
        #expect(APIRoute.routes(at: "/v1/reports/7").routes.map(\.operation) == [.getZReport])
        #expect(APIRoute.match(.get, "/v1/reports/z") == nil, "405 (POST only), not report 'z'")
        #expect(APIRoute.match(.get, "/v1/reports/7")?.route.operation == .getZReport)
        #expect(APIRoute.match(.post, "/v1/reports/z")?.route.operation == .closeDay)
        #expect(APIRoute.shadowable == [.getZReport], "only {number} shares its path's shape with named routes")
    }
}

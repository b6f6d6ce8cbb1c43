import Foundation
import PizzaTesting
import Testing

/// Text that could hurt a terminal, a printer or a reader is refused where it comes in, on every method that takes
/// it, and display text is kept composed (issue 79, item 6).
@Suite("Shop text at the socket")
struct ShopTextInputTests {
    let daemon: InProcessDaemon

    init() async throws { daemon = try await InProcessDaemon() }

    func create(_ params: String) async throws -> [String: Any] {
        try await daemon.request(#"{"jsonrpc":"2.0","id":1,"method":"order.create","params":\#(params)}"#)
    }

    @Test(
        "controls, bidirectional overrides and Zalgo text in customer, note, ref and reason: 1004 naming the field",
        arguments: [
            ("customer", #""\u001b[2J\u001b]0;owned\u0007""#), ("customer", #""Ada\u202eevil""#),
            ("note", #""\u009b31m""#), ("ref", #""T-\u2066""#), ("ref", #""T-\u001b""#),
            ("customer", "\"a" + String(repeating: "\\u0301", count: 5) + "\""),
        ])
    func refused(_ field: String, _ value: String) async throws {
        let response = try await create(#"{"\#(field)":\#(value),"items":[{"kind":"cheese"}]}"#)
        #expect(response.errorCode == 1004, "\(response)")
        #expect(response.errorData?["field"] as? String == field, "\(response)")
        let list = try await daemon.request(#"{"jsonrpc":"2.0","id":2,"method":"order.list"}"#)
        #expect((list.result?["orders"] as? [Any])?.isEmpty == true, "nothing written")
    }

    @Test("a cancellation's reason is checked the same way")
    func reason() async throws {
        let created = try await create(#"{"items":[{"kind":"cheese"}]}"#)
        let id = try #require(created.result?["id"] as? Int)
        let response = try await daemon.request(
            #"{"jsonrpc":"2.0","id":2,"method":"order.cancel","params":{"id":\#(id),"reason":"\u001b[31mgone"}}"#)
        #expect(response.errorCode == 1004 && response.errorData?["field"] as? String == "reason", "\(response)")
    }

    @Test("a note keeps its line feeds; a name typed decomposed is stored composed; a ref is kept as sent")
    func kept() async throws {
        let created = try await create(
            #"{"customer":"Zoe\u0308","note":"ring twice\nthird floor","ref":"Re\u0301f","items":[{"kind":"cheese"}]}"#
        )
        let order = try #require(created.result, "\(created)")
        #expect(order["customer"] as? String == "Zoë")
        #expect((order["customer"] as? String)?.unicodeScalars.count == 3)
        #expect(order["note"] as? String == "ring twice\nthird floor")
        #expect((order["ref"] as? String)?.unicodeScalars.map(\.value) == [0x52, 0x65, 0x301, 0x66])
    }
}

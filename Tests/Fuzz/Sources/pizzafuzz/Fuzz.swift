import Glibc
import PizzaCore
import PizzaProtocol
import PizzaWire

/// One fuzzing input: a line a client might send.
///
/// Checks that nothing crashes or traps, and two invariants: a parsed JSON document written out and parsed again
/// is the same document, and a parsed request written out as a line parses to the same method and id.
func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    if let document = try? JSONParser.parse(bytes) {
        guard let again = try? JSONParser.parse(document.jsonText), again == document else {
            fatalError("JSON round trip changed \(document.jsonText)")
        }
    }
    if let request = try? RPCRequest.parse(bytes) {
        guard let again = try? RPCRequest.parse(Array(request.line.utf8)), again.method == request.method,
            again.id == request.id
        else { fatalError("request round trip changed \(request.line)") }
        let factory = PizzaFactory()
        for item in (try? request.params.array("items")) ?? [] {
            _ = try? factory.pizza(fromWire: item, path: "items[0].")
        }
        _ = try? request.params.status("status")
        _ = try? request.params.timestamp("since")
    }
    _ = try? PizzaShorthand.parse(String(decoding: bytes, as: UTF8.self))
    return 0
}

import Glibc
import PizzaCore
import PizzaProtocol
import PizzaWire

/// One fuzzing input: a line a client might send.
///
/// Checks that nothing crashes or traps, and three invariants: a parsed JSON document written out and parsed again
/// is the same document, a parsed request written out as a line parses to the same method and id, and a line the
/// till's fast path (`OrderCreateLine`) reads is read the same by the general path.
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
    // The till's fast path reads a line only as the general path would: the same id and the same change.
    let factory = PizzaFactory()
    if let fast = OrderCreateLine.read(bytes, factory: factory) {
        guard let request = try? RPCRequest.parse(bytes), request.method == "order.create", request.id == fast.id,
            let change = try? ChangeRequest.create(request.params, factory: factory),
            case .create(let customer, let ref, let note, let pizzas, let place, let currency) = change,
            case .create(customer, ref, note, pizzas, place, currency) = fast.change
        else {
            fatalError("the fast path read what the general path does not: \(String(decoding: bytes, as: UTF8.self))")
        }
    }
    _ = try? PizzaShorthand.parse(String(decoding: bytes, as: UTF8.self))
    return 0
}

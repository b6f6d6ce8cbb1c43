import PizzaCore
import PizzaProtocol
import PizzaWire
import Testing

/// An `order.create` as either path reads it, to compare.
private struct Read: Equatable, CustomStringConvertible {
    var id: JSONValue?
    var customer: String?
    var ref: String?
    var note: String?
    var pizzas: [Pizza]
    var products: [Product]
    var fulfilment: Fulfilment
    var place: Bool
    var currency: String

    init?(id: JSONValue?, _ change: ChangeRequest) {
        guard case .create(let order) = change else { return nil }
        (self.id, self.customer, self.ref, self.note) = (id, order.customer, order.ref, order.note)
        (self.pizzas, self.products, self.fulfilment) = (order.pizzas, order.products, order.fulfilment)
        (self.place, self.currency) = (order.place, order.currency)
    }

    var description: String { "id \(String(describing: id)) ref \(ref ?? "-") \(pizzas.count) pizzas place \(place)" }
}

/// The built-in menu with a drink and a side, so that products are read too.
private let factory = PizzaFactory(
    menu: Menu(
        currency: "EUR", kinds: Menu.standard.kinds, crusts: Menu.standard.crusts, extras: Menu.standard.extras,
        products: [
            MenuProduct(id: "cola-033", name: "Cola 0.33 l", category: "drinks", price: 250, tax: "drinks"),
            MenuProduct(
                id: "garlic-bread", name: "Garlic bread", category: "sides", price: 450, tax: "food",
                options: ["extra-dip": 60]),
        ],
        taxes: ["food": 700, "drinks": 1900], pizzaTax: "food",
        deliveryFee: Fee(kind: Fee.delivery, amount: 250, tax: TaxRate(name: "food", basisPoints: 700))))

/// The general path: the JSON tree, the envelope's checks, then `ChangeRequest.create`; nil where it answers an error.
private func general(_ line: [UInt8]) -> Read? {
    guard let request = try? RPCRequest.parse(line), request.method == "order.create",
        let change = try? ChangeRequest.create(request.params, factory: factory)
    else { return nil }
    return Read(id: request.id, change)
}

private func fast(_ line: [UInt8]) -> Read? {
    OrderCreateLine.read(line, factory: factory).flatMap { Read(id: $0.id, $0.change) }
}

/// A till's line as pizzabench's clients and the C till send it.
private let till =
    #"{"jsonrpc":"2.0","method":"order.create","params":{"ref":"c3-17","customer":"bench","items":[{"kind":"chicken","size":"L","extras":["olives"]},{"kind":"cheese"}],"place":true},"id":17}"#

@Suite("order.create read without a JSON tree")
struct OrderCreateLineTests {
    @Test(
        "a plain order.create is read, and read as the general path reads it",
        arguments: [
            till,
            #"  { "id" : "till-3" , "jsonrpc" : "2.0", "params" : { "place" : false }, "method" : "order.create" } "#
                + "\r\n",
            #"{"jsonrpc":"2.0","method":"order.create","id":null}"#,
            #"{"jsonrpc":"2.0","method":"order.create"}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":null,"id":-9223372036854775808}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{},"id":0}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"items":[],"customer":null,"ref":null,"note":null,"place":null},"id":-0}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"items":[{"kind":"seafood","size":"L","crust":"thin","chiliSauce":true,"ketchup":false,"extras":[],"quantity":3}],"note":"ring twice"},"id":9223372036854775807}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"items":[{"kind":"cheese","size":null,"crust":null,"chiliSauce":null,"ketchup":null,"extras":null,"quantity":null}]},"id":1}"#,
            // A shop's whole order (CONTRACT section 17): products, notes, a delivery at a time.
            #"{"jsonrpc":"2.0","method":"order.create","params":{"customer":"bench","items":[{"kind":"chicken","size":"L","extras":["olives"],"note":"well done"},{"kind":"cheese"},{"product":"cola-033","quantity":2},{"product":"garlic-bread","options":["extra-dip"],"note":"crispy"}],"fulfilment":{"type":"delivery","phone":"030 1234567","address":{"street":"Hauptstr. 5","postcode":"10115","city":"Berlin","notes":null},"dueAt":"2026-12-06T19:30:00Z"},"place":true},"id":18}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"items":[{"product":"cola-033","quantity":null,"options":null,"note":null}],"fulfilment":{"type":"dinein","table":"7","phone":null,"address":null,"dueAt":null}},"id":19}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"items":[{"product":"cola-033"}],"fulfilment":null},"id":20}"#,
        ])
    func readsAsTheGeneralPath(line: String) throws {
        let bytes = Array(line.utf8)
        let read = try #require(fast(bytes))
        #expect(read == general(bytes))
    }

    @Test(
        "anything but the plain case is left to the general path, which answers it",
        arguments: [
            // Valid, but not plain: the general path reads these.
            #"{"jsonrpc":"2.0","method":"order.create","params":{"customer":"Zo\u00eb"},"id":1}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"customer":"Zoë"},"id":1}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"ref":"a","ref":"b"},"id":1}"#,
            #"{"jsonrpc":"2.0","method":"order.create","id":1,"extra":true}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"items":[{"kind":"cheese","quantity":2.0}]},"id":1}"#,
            // Wrong: the general path answers with its error.
            #"{"jsonrpc":"2.0","method":"order.create","id":1.0}"#,
            #"{"jsonrpc":"2.0","method":"order.create","id":1e3}"#,
            #"{"jsonrpc":"2.0","method":"order.create","id":01}"#,
            #"{"jsonrpc":"2.0","method":"order.create","id":true}"#,
            #"{"jsonrpc":"1.0","method":"order.create","id":1}"#,
            #"{"method":"order.create","id":1}"#,
            #"{"jsonrpc":"2.0","method":"order.get","params":{"id":1},"id":1}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":[],"id":1}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"colour":"red"},"id":1}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"items":[{"kind":null}]},"id":1}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"items":[{"kind":"durian"}]},"id":1}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"items":[{"kind":"cheese","size":"XXL"}]},"id":1}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"items":[{"kind":"cheese","quantity":0}]},"id":1}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"items":[{"kind":"cheese","topping":"x"}]},"id":1}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"items":[{"product":null}]},"id":1}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"items":[{"product":"lemonade"}]},"id":1}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"items":[{"product":"cola-033","size":"L"}]},"id":1}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"items":[{"kind":"cheese","options":["x"]}]},"id":1}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"items":[{"kind":"cheese","note":""}]},"id":1}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"items":[{"product":"cola-033","quantity":101}]},"id":1}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"fulfilment":{"type":"drone"}},"id":1}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"fulfilment":{"type":"pickup","dueAt":"tonight"}},"id":1}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"fulfilment":{"type":"pickup","floor":3}},"id":1}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"fulfilment":{"type":"delivery","address":{"street":"x"}}},"id":1}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"place":"yes"},"id":1}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"place":true},"id":1} x"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"place":true},"id":1"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"customer":""# + String(repeating: "a", count: 1001)
                + #""},"id":1}"#,
            #"{"jsonrpc":"2.0","method":"order.create","params":{"items":["#
                + Array(repeating: #"{"kind":"cheese"}"#, count: 101).joined(separator: ",") + #"]},"id":1}"#,
        ])
    func leavesTheRest(line: String) {
        #expect(fast(Array(line.utf8)) == nil)
    }

    /// Lines near a till's, damaged at random (a seeded generator, so a failure repeats): wherever the fast path
    /// reads one, the general path reads the same.
    @Test("a damaged line the fast path reads, the general path reads the same")
    func damagedLines() {
        var random = SplitMix(seed: 0x0070_122A)
        let seeds = [
            till,
            #"{"id":"t-1","jsonrpc":"2.0","method":"order.create","params":{"items":[{"kind":"seafood","quantity":12,"chiliSauce":false}],"note":null}}"#,
            #"{"id":2,"jsonrpc":"2.0","method":"order.create","params":{"items":[{"kind":"cheese","note":"ab"},{"product":"cola-033","quantity":2,"options":[]}],"fulfilment":{"type":"dinein","table":"7","dueAt":"2026-12-06T19:30:00Z"}}}"#,
        ]
        let alphabet = Array(#"{}[]:,"0123456789-.etruflsnaxk \"#.utf8)
        var read = 0
        for round in 0..<20_000 {
            var line = Array(seeds[round % seeds.count].utf8)
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let at = Int(random.next() % UInt64(line.count))
                switch random.next() % 3 {
                case 0: line.remove(at: at)
                case 1: line.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: at)
                default: line[at] = alphabet[Int(random.next() % UInt64(alphabet.count))]
                }
                if line.isEmpty { line = [0x7B] }
            }
            guard let fast = fast(line) else { continue }
            read += 1
            #expect(fast == general(line), "\(String(decoding: line, as: UTF8.self))")
        }
        // Some damage leaves a plain order (a digit of the id or the ref changed): the comparison ran.
        #expect(read > 100)
    }
}

/// SplitMix64: a small seeded generator.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

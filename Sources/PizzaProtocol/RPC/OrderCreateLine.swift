public import PizzaCore
public import PizzaWire

/// An `order.create` request line read straight into the change it asks for, without a JSON tree: the request a
/// till sends all day, read on the event loop.
///
/// Only the plain case: each member one the request may have, given once; strings of printable ASCII without
/// escapes; whole numbers. Anything else, and anything wrong, reads as nil and is left to the general path
/// (``RPCRequest/parse(_:)``, then ``ChangeRequest/create(_:factory:)``), which reads the line again and gives it
/// its answer or its error. Where this reads a line, it reads what that path would: the same id, the same change.
public enum OrderCreateLine {
    /// What a line asked for.
    public struct Request: Sendable {
        /// The request's id (nil for a notification, `.null` for an explicit null).
        public let id: JSONValue?
        /// The order it asks for.
        public let change: ChangeRequest
    }

    /// The line's request, or nil when it is not a plain `order.create` (see the type).
    public static func read<Bytes: Collection<UInt8>>(_ line: Bytes, factory: PizzaFactory) -> Request? {
        line.withContiguousStorageIfAvailable { bytes in
            var reader = Reader(bytes: bytes)
            return reader.request(factory: factory)
        } ?? nil
    }
}

/// The bytes of one line, read forward; every reading returns nil (or false) for what the general path should see.
private struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    static let envelope: [StaticString] = ["jsonrpc", "id", "method", "params"]
    static let params: [StaticString] = ["customer", "ref", "note", "items", "place"]
    static let pizza: [StaticString] = ["kind", "size", "crust", "chiliSauce", "ketchup", "extras", "quantity"]

    mutating func request(factory: PizzaFactory) -> OrderCreateLine.Request? {
        var id: JSONValue?
        var change: ChangeRequest?
        var method = false
        var version = false
        let read = object(Self.envelope) { reader, member in
            switch member {
            case 0: version = reader.literal("\"2.0\"")
            case 1:
                if reader.literal("null") {
                    id = .null
                } else if reader.peek() == UInt8(ascii: "\"") {
                    id = reader.string().map(JSONValue.string)
                } else {
                    id = reader.int().map(JSONValue.int)
                }
                return id != nil
            case 2: method = reader.literal("\"order.create\"")
            default:
                if reader.literal("null") { return true }
                change = reader.create(factory: factory)
                return change != nil
            }
            return true
        }
        skipWhitespace()
        guard read, version, method, index == bytes.count else { return nil }
        // Params absent or null: an order with nothing in it, as the general path reads it.
        return OrderCreateLine.Request(id: id, change: change.take() ?? Self.order(factory: factory))
    }

    /// The change `order.create` asks for, in the menu's currency.
    static func order(
        customer: String? = nil, ref: String? = nil, note: String? = nil, pizzas: [Pizza] = [], place: Bool = false,
        factory: PizzaFactory
    ) -> ChangeRequest {
        .create(customer: customer, ref: ref, note: note, pizzas: pizzas, place: place, currency: factory.menu.currency)
    }

    /// The params object: `{customer?, ref?, note?, items?, place?}`, checked as ``ChangeRequest/create(_:factory:)``
    /// checks them.
    mutating func create(factory: PizzaFactory) -> ChangeRequest? {
        var customer: String?
        var ref: String?
        var note: String?
        var pizzas: [Pizza] = []
        var place = false
        let read = object(Self.params) { reader, member in
            if reader.literal("null") { return true }
            switch member {
            case 0:
                customer = reader.string()
                return customer != nil
            case 1:
                ref = reader.string()
                return ref != nil
            case 2:
                note = reader.string()
                return note != nil
            case 3: return reader.pizzas(factory: factory, into: &pizzas)
            default:
                guard let bool = reader.bool() else { return false }
                place = bool
                return true
            }
        }
        // Longer texts are refused by the general path, with its message.
        guard read, (customer?.utf8.count ?? 0) <= 1000, (note?.utf8.count ?? 0) <= 1000 else { return nil }
        return Self.order(customer: customer, ref: ref, note: note, pizzas: pizzas, place: place, factory: factory)
    }

    /// `[pizza, …]`, at most 100. Room for two comes with the first: one allocation for an order of one or two pizzas
    /// (nearly all), where appending made a second (room for four cost more memory than it saved: PERFORMANCE.md).
    mutating func pizzas(factory: PizzaFactory, into pizzas: inout [Pizza]) -> Bool {
        array { reader in
            guard pizzas.count < 100, let pizza = reader.pizza(factory: factory) else { return false }
            if pizzas.isEmpty { pizzas.reserveCapacity(2) }
            pizzas.append(pizza)
            return true
        }
    }

    /// One pizza's object, through the factory and the builder in the order `PizzaFactory.pizza(fromWire:)` uses.
    mutating func pizza(factory: PizzaFactory) -> Pizza? {
        var kind: String?
        var size: String?
        var crust: String?
        var chiliSauce: Bool?
        var ketchup: Bool?
        var extras: [String]?
        var quantity: Int64?
        let read = object(Self.pizza) { reader, member in
            // A null kind is "kind is required" on the general path; any other null is the member left out.
            if reader.literal("null") { return member != 0 }
            switch member {
            case 0: kind = reader.string()
            case 1: size = reader.string()
            case 2: crust = reader.string()
            case 3: chiliSauce = reader.bool()
            case 4: ketchup = reader.bool()
            case 5: extras = reader.strings()
            default: quantity = reader.int()
            }
            switch member {
            case 0: return kind != nil
            case 1: return size != nil
            case 2: return crust != nil
            case 3: return chiliSauce != nil
            case 4: return ketchup != nil
            case 5: return extras != nil
            default: return quantity != nil
            }
        }
        guard read, let kind, var builder = try? factory.builder(for: kind) else { return nil }
        if let size { builder = builder.size(size) }
        if let crust { builder = builder.crust(crust) }
        if let chiliSauce { builder = builder.chiliSauce(chiliSauce) }
        if let ketchup { builder = builder.ketchup(ketchup) }
        if let extras { builder = builder.extras(extras) }
        if let quantity { builder = builder.quantity(Int(clamping: quantity)) }
        return try? builder.build()
    }

    // MARK: JSON, the plain part

    /// `{"name": value, …}` whose names are among `names`, each at most once; `member` reads the value of the name
    /// at its index and says whether it could.
    mutating func object(_ names: [StaticString], _ member: (inout Reader, Int) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        var seen = 0
        repeat {
            guard let name = self.name(among: names), seen & (1 << name) == 0, take(UInt8(ascii: ":")) else {
                return false
            }
            seen |= 1 << name
            skipWhitespace()
            guard member(&self, name) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    /// `[value, …]`, each read by `element`.
    mutating func array(_ element: (inout Reader) -> Bool) -> Bool {
        guard take(UInt8(ascii: "[")) else { return false }
        if take(UInt8(ascii: "]")) { return true }
        repeat {
            skipWhitespace()
            guard element(&self) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]"))
    }

    /// A member's name: its index in `names`, or nil for any other. Each name is tried where the member's name
    /// starts, its closing quote first, so that a name not among them is not read byte by byte (one that is among
    /// them is plain, needing no check for escapes).
    mutating func name(among names: [StaticString]) -> Int? {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let base = bytes.baseAddress else {
            return nil
        }
        let start = index + 1
        for candidate in names.indices {
            let name = names[candidate]
            let end = start + name.utf8CodeUnitCount
            guard end < bytes.count, bytes[end] == UInt8(ascii: "\""),
                Self.equal(name, UnsafeBufferPointer(start: base + start, count: end - start))
            else { continue }
            index = end + 1
            return candidate
        }
        return nil
    }

    /// A string of printable ASCII without escapes.
    mutating func string() -> String? {
        plainString().map { String(decoding: $0, as: UTF8.self) }
    }

    /// `[string, …]`.
    mutating func strings() -> [String]? {
        var strings: [String] = []
        let read = array { reader in
            guard let string = reader.string() else { return false }
            strings.append(string)
            return true
        }
        return read ? strings : nil
    }

    /// The bytes between a string's quotes, when they need no decoding (no escape, nothing outside printable ASCII).
    mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
        guard peek() == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        var end = start
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                index = end + 1
                return UnsafeBufferPointer(rebasing: bytes[start..<end])
            }
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
            end += 1
        }
        return nil
    }

    /// `-?digits` that fit in 64 bits, without a fraction or an exponent (a leading zero only alone).
    mutating func int() -> Int64? {
        var end = index
        let negative = end < bytes.count && bytes[end] == UInt8(ascii: "-")
        if negative { end += 1 }
        let digits = end
        var value: Int64 = 0
        while end < bytes.count, (48...57).contains(bytes[end]) {
            // Built as a negative number, which reaches Int64.min, as the general parser does.
            let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times10.subtractingReportingOverflow(Int64(bytes[end] - 48))
            if overflow || overflow2 { return nil }
            value = next
            end += 1
        }
        guard end > digits, bytes[digits] != 48 || end == digits + 1 else { return nil }
        if end < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[end]) {
            return nil
        }
        if !negative, value == .min { return nil }
        index = end
        return negative ? value : -value
    }

    mutating func bool() -> Bool? {
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    /// Whether `text` comes next (after white space); only then is it read.
    mutating func literal(_ text: StaticString) -> Bool {
        skipWhitespace()
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count,
            Self.equal(text, UnsafeBufferPointer(rebasing: bytes[index..<(index + count)]))
        else { return false }
        index += count
        return true
    }

    /// Whether `text` is `name`, byte for byte (a plain loop: `elementsEqual` was a tenth of the reading), the
    /// lengths compared first.
    static func equal(_ name: StaticString, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard name.utf8CodeUnitCount == text.count else { return false }
        let bytes = name.utf8Start
        for index in 0..<text.count where bytes[index] != text[index] { return false }
        return true
    }

    /// Whether `byte` comes next (after white space); only then is it read.
    mutating func take(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while index < bytes.count,
            bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09
        {
            index += 1
        }
    }
}

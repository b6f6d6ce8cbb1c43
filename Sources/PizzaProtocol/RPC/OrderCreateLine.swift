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

        /// The id and the change, taken apart, so that the change is handed on without a copy of its strings and
        /// arrays.
        public consuming func parts() -> (id: JSONValue?, change: ChangeRequest) { (id, change) }
    }

    /// The line's request, or nil when it is not a plain `order.create` (see the type).
    public static func read<Bytes: Collection<UInt8>>(_ line: Bytes, factory: PizzaFactory) -> Request? {
        line.withContiguousStorageIfAvailable { bytes in
            var reader = OrderCreateReader(bytes: bytes)
            return reader.request(factory: factory)
        } ?? nil
    }
}

/// The bytes of one line, read forward; every reading returns nil (or false) for what the general path should see.
/// The request's parts here; the plain JSON they are made of in `OrderCreateLine+JSON.swift`.
struct OrderCreateReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    static let envelope: [StaticString] = ["jsonrpc", "id", "method", "params"]
    static let params: [StaticString] = ["customer", "ref", "note", "items", "place", "fulfilment"]
    /// An item's members: a pizza's (0-7) and a product's (`product`, `quantity`, `options`, `note`).
    static let item: [StaticString] = [
        "kind", "size", "crust", "chiliSauce", "ketchup", "extras", "quantity", "note", "product", "options",
    ]

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
        customer: String? = nil, ref: String? = nil, note: String? = nil, pizzas: [Pizza] = [],
        products: [Product] = [], fulfilment: Fulfilment = .pickup, place: Bool = false, factory: PizzaFactory
    ) -> ChangeRequest {
        .create(
            NewOrder(
                customer: customer, ref: ref, note: note, pizzas: pizzas, products: products, fulfilment: fulfilment,
                deliveryFee: factory.menu.deliveryFee, place: place, currency: factory.menu.currency))
    }

    /// The params object: `{customer?, ref?, note?, items?, place?}`, checked as ``ChangeRequest/create(_:factory:)``
    /// checks them.
    mutating func create(factory: PizzaFactory) -> ChangeRequest? {
        var customer: String?
        var ref: String?
        var note: String?
        var pizzas: [Pizza] = []
        var products: [Product] = []
        var fulfilment = Fulfilment.pickup
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
            case 3: return reader.items(factory: factory, into: &pizzas, &products)
            case 4:
                guard let bool = reader.bool() else { return false }
                place = bool
                return true
            default:
                guard let read = reader.fulfilment() else { return false }
                fulfilment = read
                return true
            }
        }
        // Longer texts, and any but printable ASCII (checked and normalised there), are the general path's, with its
        // message.
        guard read, Self.plain(customer, lineFeeds: false), Self.plain(note, lineFeeds: true) else { return nil }
        return Self.order(
            customer: customer, ref: ref, note: note, pizzas: pizzas, products: products, fulfilment: fulfilment,
            place: place, factory: factory)
    }

    /// `[item, …]`, at most 100: pizzas, and products after them. Room for two pizzas comes with the first: one
    /// allocation for an order of one or two (nearly all), where appending made a second (room for four cost more
    /// memory than it saved: PERFORMANCE.md).
    mutating func items(factory: PizzaFactory, into pizzas: inout [Pizza], _ products: inout [Product]) -> Bool {
        array { reader in
            guard pizzas.count + products.count < 100, let item = reader.item(factory: factory) else { return false }
            switch item {
            case .pizza(let pizza):
                if pizzas.isEmpty { pizzas.reserveCapacity(2) }
                pizzas.append(pizza)
            case .product(let product): products.append(product)
            }
            return true
        }
    }

    enum Item {
        case pizza(Pizza)
        case product(Product)
    }

    /// One item's object: a pizza through the factory and the builder in the order `PizzaFactory.pizza(fromWire:)`
    /// uses, or a product as `PizzaFactory.product(fromWire:)` makes it.
    mutating func item(factory: PizzaFactory) -> Item? {
        var kind: String?
        var size: String?
        var crust: String?
        var chiliSauce: Bool?
        var ketchup: Bool?
        var extras: [String]?
        var quantity: Int64?
        var note: String?
        var product: String?
        var options: [String]?
        let read = object(Self.item) { reader, member in
            // A null kind or product is "required" on the general path; any other null is the member left out.
            if reader.literal("null") { return member != 0 && member != 8 }
            switch member {
            case 0: kind = reader.string()
            case 1: size = reader.string()
            case 2: crust = reader.string()
            case 3: chiliSauce = reader.bool()
            case 4: ketchup = reader.bool()
            case 5: extras = reader.strings()
            case 6: quantity = reader.int()
            case 7: note = reader.string()
            case 8: product = reader.string()
            default: options = reader.strings()
            }
            switch member {
            case 0: return kind != nil
            case 1: return size != nil
            case 2: return crust != nil
            case 3: return chiliSauce != nil
            case 4: return ketchup != nil
            case 5: return extras != nil
            case 6: return quantity != nil
            case 7: return note != nil
            case 8: return product != nil
            default: return options != nil
            }
        }
        // A note the general path would refuse (empty, or past its 200 bytes) is its to answer.
        guard read, note.map({ (1...Cart.noteBytes).contains($0.utf8.count) }) ?? true else { return nil }
        if let product {
            // A pizza's member on a product is the general path's error.
            guard kind == nil, size == nil, crust == nil, chiliSauce == nil, ketchup == nil, extras == nil,
                let made = try? factory.product(
                    product, quantity: Int(clamping: quantity ?? 1), options: options ?? [], note: note)
            else { return nil }
            return .product(made)
        }
        guard options == nil, let kind, var builder = try? factory.builder(for: kind) else { return nil }
        if let size { builder = builder.size(size) }
        if let crust { builder = builder.crust(crust) }
        if let chiliSauce { builder = builder.chiliSauce(chiliSauce) }
        if let ketchup { builder = builder.ketchup(ketchup) }
        if let extras { builder = builder.extras(extras) }
        if let quantity { builder = builder.quantity(Int(clamping: quantity)) }
        if let note { builder = builder.note(note) }
        return (try? builder.build()).map(Item.pizza)
    }

    static let fulfilmentMembers: [StaticString] = ["type", "phone", "address", "table", "dueAt"]
    static let addressMembers: [StaticString] = ["street", "postcode", "city", "notes"]

    /// `{type, phone?, address?, table?, dueAt?}` as `Fulfilment(wire:)` reads it; its rules are the repository's.
    mutating func fulfilment() -> Fulfilment? {
        if literal("null") { return .pickup }
        var type: Fulfilment.Kind?
        var phone: String?
        var address: Fulfilment.Address?
        var table: String?
        var dueAt: Timestamp?
        let read = object(Self.fulfilmentMembers) { reader, member in
            if reader.literal("null") { return member != 0 }
            switch member {
            case 0:
                type = reader.string().flatMap(Fulfilment.Kind.init(rawValue:))
                return type != nil
            case 1:
                phone = reader.string()
                return phone != nil
            case 2:
                address = reader.address()
                return address != nil
            case 3:
                table = reader.string()
                return table != nil
            default:
                dueAt = reader.string().flatMap(Timestamp.init(iso8601:))
                return dueAt != nil
            }
        }
        guard read, let type else { return nil }
        return Fulfilment(type: type, phone: phone, address: address, table: table, dueAt: dueAt)
    }

    /// `{street, postcode, city, notes?}`.
    mutating func address() -> Fulfilment.Address? {
        var street: String?
        var postcode: String?
        var city: String?
        var notes: String?
        let read = object(Self.addressMembers) { reader, member in
            if reader.literal("null") { return member == 3 }
            // Each member read and answered by itself: an array of the four to index was an allocation a member.
            switch member {
            case 0:
                street = reader.string()
                return street != nil
            case 1:
                postcode = reader.string()
                return postcode != nil
            case 2:
                city = reader.string()
                return city != nil
            default:
                notes = reader.string()
                return notes != nil
            }
        }
        guard read, let street, let postcode, let city else { return nil }
        return Fulfilment.Address(street: street, postcode: postcode, city: city, notes: notes)
    }
}

extension OrderCreateReader {
    /// Whether `text` is at most 1000 bytes of printable ASCII (and line feeds where allowed): nothing for
    /// ``ShopText`` to refuse or normalise.
    static func plain(_ text: String?, lineFeeds: Bool) -> Bool {
        guard let text else { return true }
        return text.utf8.count <= 1000
            && text.utf8.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || ($0 == 0x0A && lineFeeds) }
    }
}

public import PizzaCore
public import PizzaWire

extension PizzaFactory {
    /// The fields a pizza's wire form may have; made once, not per pizza.
    static let pizzaFields: Set<String> = [
        "kind", "size", "crust", "chiliSauce", "ketchup", "extras", "quantity", "note",
    ]

    /// Makes a pizza from its wire form: only `kind` is required, the rest default from the menu. `path` names
    /// the pizza in errors (`items[1].`); it is only made for an error.
    public func pizza(fromWire value: JSONValue, path: @autoclosure () -> String = "") throws(RPCError) -> Pizza {
        guard case .object(let members) = value else {
            throw .invalidParams(
                String(path().dropLast()), "a pizza must be an object, not \(value.typeName)", expected: "object")
        }
        let params = Params(members)
        if let unknown = members.first(where: { !Self.pizzaFields.contains($0.0) }) {
            throw .invalidParams(
                path() + unknown.0, "unknown pizza field '\(unknown.0)'",
                expected: Self.pizzaFields.sorted().joined(separator: "|"))
        }
        func field<T>(_ read: () throws(RPCError) -> T) throws(RPCError) -> T {
            do { return try read() } catch {
                var error = error
                if case .object(var data)? = error.data, let index = data.firstIndex(where: { $0.0 == "field" }),
                    let name = data[index].1.stringValue
                {
                    data[index].1 = .string(path() + name)
                    error.data = .object(data)
                }
                throw error
            }
        }
        let kind = try field { () throws(RPCError) in try params.requiredString("kind") }
        var builder: PizzaBuilder
        do { builder = try self.builder(for: kind) } catch { throw RPCError(error, path: path()) }
        if let size = try field({ () throws(RPCError) in try params.string("size") }) { builder = builder.size(size) }
        if let crust = try field({ () throws(RPCError) in try params.string("crust") }) {
            builder = builder.crust(crust)
        }
        if let chili = try field({ () throws(RPCError) in try params.bool("chiliSauce") }) {
            builder = builder.chiliSauce(chili)
        }
        if let ketchup = try field({ () throws(RPCError) in try params.bool("ketchup") }) {
            builder = builder.ketchup(ketchup)
        }
        if let extras = try field({ () throws(RPCError) in try params.array("extras") }) {
            var names: [String] = []
            names.reserveCapacity(extras.count)
            for extra in extras {
                guard let name = extra.stringValue else {
                    throw .invalidParams(path() + "extras", "extras must be strings", expected: "array of strings")
                }
                names.append(name)
            }
            builder = builder.extras(names)
        }
        if let quantity = try field({ () throws(RPCError) in try params.int("quantity") }) {
            builder = builder.quantity(Int(clamping: quantity))
        }
        if let note = try field({ () throws(RPCError) in try params.string("note") }) {
            let limit = Cart.noteBytes
            if let refusal = ShopText.refusal(note, field: path() + "note", characters: 1...limit, bytes: limit) {
                throw RPCError(refusal)
            }
            builder = builder.note(ShopText.normalized(note))
        }
        do { return try builder.build() } catch { throw RPCError(error, path: path()) }
    }
}

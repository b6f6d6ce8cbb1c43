import PizzaCore

/// Writes an order as the JSON the audit log stores, in the shape `Cart`'s `Codable` conformance reads back
/// (`JSONDecoder().decode(Cart.self, …)`), without `JSONEncoder`'s cost on every change.
enum AuditJSON {
    static func encode(_ cart: Cart) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(512 + cart.items.count * 160 + cart.history.count * 140)
        out += #"{"id":"#.utf8
        out += String(cart.id).utf8
        key(&out, "ref")
        string(&out, cart.ref)
        key(&out, "customer")
        string(&out, cart.customer)
        key(&out, "note")
        string(&out, cart.note)
        key(&out, "status")
        string(&out, cart.status.rawValue)
        out += #","items":["#.utf8
        for (index, item) in cart.items.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            let pizza = item.pizza
            out += #"{"id":"#.utf8
            out += String(item.id).utf8
            out += #","pizza":{"kind":"#.utf8
            string(&out, pizza.kind)
            key(&out, "size")
            string(&out, pizza.size.rawValue)
            key(&out, "crust")
            string(&out, pizza.crust)
            out += #","chiliSauce":"#.utf8
            out += (pizza.chiliSauce ? "true" : "false").utf8
            out += #","ketchup":"#.utf8
            out += (pizza.ketchup ? "true" : "false").utf8
            out += #","extras":["#.utf8
            for (offset, extra) in pizza.extras.enumerated() {
                if offset > 0 { out.append(UInt8(ascii: ",")) }
                string(&out, extra)
            }
            out += #"],"quantity":"#.utf8
            out += String(pizza.quantity).utf8
            out += #","unitPrice":"#.utf8
            out += String(pizza.unitPrice).utf8
            out += "}}".utf8
        }
        out.append(UInt8(ascii: "]"))
        key(&out, "currency")
        string(&out, cart.currency)
        key(&out, "createdAt")
        string(&out, cart.createdAt.description)
        key(&out, "updatedAt")
        string(&out, cart.updatedAt.description)
        out += #","history":["#.utf8
        for (index, change) in cart.history.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += #"{"from":"#.utf8
            string(&out, change.from?.rawValue)
            key(&out, "to")
            string(&out, change.to.rawValue)
            key(&out, "at")
            string(&out, change.at.description)
            out += #","actor":{"uid":"#.utf8
            out += String(change.actor.uid).utf8
            out += #","name":"#.utf8
            string(&out, change.actor.name)
            out += #","pid":"#.utf8
            out += String(change.actor.pid).utf8
            out.append(UInt8(ascii: "}"))
            key(&out, "reason")
            string(&out, change.reason)
            out.append(UInt8(ascii: "}"))
        }
        out += "]}".utf8
        return String(decoding: out, as: UTF8.self)
    }

    private static func key(_ out: inout [UInt8], _ name: StaticString) {
        out.append(UInt8(ascii: ","))
        out.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { out += $0 }
        out += "\":".utf8
    }

    private static let hex = Array("0123456789abcdef".utf8)

    private static func string(_ out: inout [UInt8], _ value: String?) {
        guard let value else {
            out += "null".utf8
            return
        }
        out.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [0x5C, 0x22]
            case UInt8(ascii: "\\"): out += [0x5C, 0x5C]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            case 0..<0x20:
                out += "\\u00".utf8
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

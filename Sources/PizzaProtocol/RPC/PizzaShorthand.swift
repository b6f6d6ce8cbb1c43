public import PizzaWire

/// The command-line form of an item, one syntax for pizzas and products:
/// `KIND[:SIZE][,crust=C][,chili][,ketchup][,extra=X]...[,qty=N][,note=TEXT]` or
/// `PRODUCT[,option=X]...[,qty=N][,note=TEXT]` (`note=` takes the rest, commas and all).
///
/// `chicken:L,crust=thin,chili,extra=olives` becomes
/// `{"kind":"chicken","size":"L","crust":"thin","chiliSauce":true,"extras":["olives"]}`; `cola-033,qty=2` (a name
/// in `products`) becomes `{"product":"cola-033","quantity":2}`. Checking the values against the menu is the
/// daemon's job; this only reads the shape.
public enum PizzaShorthand {
    /// Why a shorthand could not be read.
    public struct Error: Swift.Error, CustomStringConvertible, Equatable {
        /// The shorthand as given.
        public let text: String
        /// What is wrong with it.
        public let reason: String
        public var description: String {
            "cannot read item '\(text)': \(reason); the form is \(PizzaShorthand.form)"
        }
    }

    /// The two forms, as help and errors show them.
    public static let form =
        "KIND[:SIZE][,crust=C][,chili][,ketchup][,extra=X]...[,qty=N][,note=TEXT] or "
        + "PRODUCT[,option=X]...[,qty=N][,note=TEXT]"

    /// Where `,note=` begins, if it does.
    private static func noteStart(in text: String) -> String.Index? {
        var index = text.startIndex
        while index != text.endIndex {
            if text[index...].hasPrefix(",note=") { return index }
            index = text.index(after: index)
        }
        return nil
    }

    /// Reads one item: a product when its name is one of `products`, else a pizza.
    public static func parse(_ text: String, products: Set<String> = []) throws(Error) -> JSONValue {
        var body = Substring(text)
        var note: String?
        if let start = Self.noteStart(in: text) {
            note = String(text[text.index(start, offsetBy: 6)...])
            body = text[..<start]
            guard note?.isEmpty == false else { throw Error(text: text, reason: "the note after note= is empty") }
        }
        let parts = body.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        if let name = parts.first, products.contains(name) {
            var members: [(String, JSONValue)] = [("product", .string(name))]
            var options: [JSONValue] = []
            for part in parts.dropFirst() {
                let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                switch (pair[0], pair.count) {
                case ("option", 2) where !pair[1].isEmpty: options.append(.string(pair[1]))
                case ("qty", 2):
                    guard let quantity = Int64(pair[1]) else {
                        throw Error(text: text, reason: "qty must be a whole number, not '\(pair[1])'")
                    }
                    members.append(("quantity", .int(quantity)))
                default: throw Error(text: text, reason: "unknown option '\(part)' for a product")
                }
            }
            if !options.isEmpty { members.append(("options", .array(options))) }
            if let note { members.append(("note", .string(note))) }
            return .object(members)
        }
        guard let head = parts.first, !head.isEmpty else { throw Error(text: text, reason: "the kind is missing") }
        let kindAndSize = head.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard kindAndSize.count <= 2, !kindAndSize[0].isEmpty else {
            throw Error(text: text, reason: "expected KIND or KIND:SIZE before the first comma")
        }
        var members: [(String, JSONValue)] = [("kind", .string(kindAndSize[0]))]
        if kindAndSize.count == 2 {
            guard !kindAndSize[1].isEmpty else { throw Error(text: text, reason: "the size after ':' is empty") }
            members.append(("size", .string(kindAndSize[1].uppercased())))
        }
        var extras: [JSONValue] = []
        for part in parts.dropFirst() {
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            switch (pair[0], pair.count) {
            case ("chili", 1): members.append(("chiliSauce", true))
            case ("ketchup", 1): members.append(("ketchup", true))
            case ("crust", 2) where !pair[1].isEmpty: members.append(("crust", .string(pair[1])))
            case ("extra", 2) where !pair[1].isEmpty: extras.append(.string(pair[1]))
            case ("qty", 2):
                guard let quantity = Int64(pair[1]) else {
                    throw Error(text: text, reason: "qty must be a whole number, not '\(pair[1])'")
                }
                members.append(("quantity", .int(quantity)))
            default:
                throw Error(text: text, reason: "unknown option '\(part)'")
            }
        }
        if !extras.isEmpty { members.append(("extras", .array(extras))) }
        if let note { members.append(("note", .string(note))) }
        return .object(members)
    }
}

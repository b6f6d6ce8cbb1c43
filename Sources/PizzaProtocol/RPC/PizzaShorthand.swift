public import PizzaWire

/// The command-line form of a pizza: `KIND[:SIZE][,crust=C][,chili][,ketchup][,extra=X]...[,qty=N]`.
///
/// `chicken:L,crust=thin,chili,extra=olives` becomes
/// `{"kind":"chicken","size":"L","crust":"thin","chiliSauce":true,"extras":["olives"]}`. Checking the values
/// against the menu is the daemon's job; this only reads the shape.
public enum PizzaShorthand {
    /// Why a shorthand could not be read.
    public struct Error: Swift.Error, CustomStringConvertible, Equatable {
        /// The shorthand as given.
        public let text: String
        /// What is wrong with it.
        public let reason: String
        public var description: String {
            "cannot read pizza '\(text)': \(reason); the form is KIND[:SIZE][,crust=C][,chili][,ketchup][,extra=X]...[,qty=N]"
        }
    }

    /// Reads one pizza.
    public static func parse(_ text: String) throws(Error) -> JSONValue {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
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
        return .object(members)
    }
}

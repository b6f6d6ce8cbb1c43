public import PizzaCore

extension Cart: Codable {
    /// Reads an order's one wire form (``Cart/init(wire:)``).
    public init(from decoder: any Decoder) throws {
        let json = try JSONValue(from: decoder)
        do {
            self = try Cart(wire: json)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "\(error)"))
        }
    }

    /// Writes the order's one wire form (``Cart/wire``).
    public func encode(to encoder: any Encoder) throws { try wire.encode(to: encoder) }
}

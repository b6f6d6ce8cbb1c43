public import PizzaWire

/// A request that could not be read, with its id when known.
public struct RequestError: Error, Sendable {
    public var id: JSONValue?
    public var error: RPCError
}

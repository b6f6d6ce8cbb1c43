public import PizzaWire

/// A request that could not be read, with its id when known.
public struct RequestError: Error, Sendable {
    /// The request's id, when it could be read.
    public var id: JSONValue?
    /// What is wrong.
    public var error: RPCError
}

public import PizzaWire

/// A JSON-RPC 2.0 request read from one line.
public struct RPCRequest: Sendable {
    /// The request's id; nil for a notification (which gets no response).
    public var id: JSONValue?
    /// The method's name.
    public var method: String
    /// The params object (empty when absent).
    public var params: Params

    /// A request; `id` nil for a notification.
    public init(id: JSONValue?, method: String, params: Params = Params()) {
        self.id = id
        self.method = method
        self.params = params
    }

    /// Parses a line. Throws `parse_error` for bad JSON and `invalid_request` for a wrong envelope; the error
    /// comes with the id when one could be read, so the client can match it.
    public static func parse<Bytes: Collection<UInt8>>(_ line: Bytes) throws(RequestError) -> RPCRequest {
        let document: JSONValue
        do {
            document = try JSONParser.parse(line)
        } catch {
            throw RequestError(id: nil, error: RPCError(.parseError, "invalid JSON: \(error)"))
        }
        guard case .object = document else {
            throw RequestError(id: nil, error: RPCError(.invalidRequest, "a request must be a JSON object"))
        }
        let id = document["id"]
        switch id {
        case nil, .null?, .string?, .int?: break
        default:
            throw RequestError(id: nil, error: RPCError(.invalidRequest, "id must be a string, an integer or null"))
        }
        guard document["jsonrpc"] == "2.0" else {
            throw RequestError(id: id, error: RPCError(.invalidRequest, #"jsonrpc must be "2.0""#))
        }
        guard let method = document["method"]?.stringValue, !method.isEmpty else {
            throw RequestError(id: id, error: RPCError(.invalidRequest, "method must be a non-empty string"))
        }
        var params = Params()
        switch document["params"] {
        case nil, .null?: break
        case .object(let members)?: params = Params(members)
        default:
            throw RequestError(id: id, error: RPCError(.invalidParams, "params must be an object"))
        }
        return RPCRequest(id: id, method: method, params: params)
    }

    /// The request as one line of JSON (without the newline).
    public var line: String {
        var members: [(String, JSONValue)] = [("jsonrpc", "2.0")]
        if let id { members.append(("id", id)) }
        members.append(("method", .string(method)))
        if !params.members.isEmpty { members.append(("params", .object(params.members))) }
        return JSONValue.object(members).jsonText
    }
}

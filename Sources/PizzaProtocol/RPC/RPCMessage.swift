/// The version of pizzad and pizzactl, built together from this repository.
public enum PizzadVersion {
    public static let current = "0.1.0"
}

/// The version of the control-socket protocol; a different major version is refused with `unsupported_version`.
public enum ProtocolVersion {
    public static let current = "1.0"
    public static let major = 1

    /// The major number of a version string, or nil when it is not `N` or `N.M`.
    public static func major(of version: String) -> Int? {
        Int(version.split(separator: ".", maxSplits: 1).first ?? "")
    }
}

/// The largest line either side may send.
public let maximumLineLength = 1 << 20

/// A JSON-RPC 2.0 request read from one line.
public struct RPCRequest: Sendable {
    /// The request's id; nil for a notification (which gets no response).
    public var id: JSONValue?
    public var method: String
    /// The params object (empty when absent).
    public var params: Params

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

/// A request that could not be read, with its id when known.
public struct RequestError: Error, Sendable {
    public var id: JSONValue?
    public var error: RPCError
}

/// A JSON-RPC 2.0 response.
public enum RPCResponse {
    /// The line for a successful result.
    public static func success(id: JSONValue, result: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(512)
        output.append(contentsOf: #"{"jsonrpc":"2.0","id":"#.utf8)
        id.write(into: &output)
        output.append(contentsOf: #","result":"#.utf8)
        result.write(into: &output)
        output.append(contentsOf: "}\n".utf8)
        return output
    }

    /// The line for an error.
    public static func failure(id: JSONValue?, error: RPCError) -> [UInt8] {
        var output: [UInt8] = []
        output.append(contentsOf: #"{"jsonrpc":"2.0","id":"#.utf8)
        (id ?? .null).write(into: &output)
        output.append(contentsOf: #","error":"#.utf8)
        error.json.write(into: &output)
        output.append(contentsOf: "}\n".utf8)
        return output
    }

    /// The line for a server-sent notification (`event`).
    public static func notification(method: String, params: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        output.append(contentsOf: #"{"jsonrpc":"2.0","method":"#.utf8)
        JSONValue.string(method).write(into: &output)
        output.append(contentsOf: #","params":"#.utf8)
        params.write(into: &output)
        output.append(contentsOf: "}\n".utf8)
        return output
    }

    /// The `event` notification of one change, `{seq, at, kind, order}`, with the order's wire text put in as it
    /// is (``OrderChange/afterWireText``: encoded once per change, however many watchers).
    public static func event(seq: Int64, at: String, kind: String, orderText: String) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(orderText.utf8.count + 128)
        output.append(contentsOf: #"{"jsonrpc":"2.0","method":"event","params":{"seq":"#.utf8)
        output.append(contentsOf: String(seq).utf8)
        output.append(contentsOf: #","at":"#.utf8)
        JSONValue.writeString(at, into: &output)
        output.append(contentsOf: #","kind":"#.utf8)
        JSONValue.writeString(kind, into: &output)
        output.append(contentsOf: #","order":"#.utf8)
        output.append(contentsOf: orderText.utf8)
        output.append(contentsOf: "}}\n".utf8)
        return output
    }
}

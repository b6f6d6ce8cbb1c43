import Foundation
package import HTTPTypes
package import PizzaProtocol
package import PizzaWire

/// What the order API reads from a request before a handler runs (CONTRACT section 15): its keys, its media type,
/// its `Last-Event-ID` and `If-None-Match`, its JSON body and its query, each read one way for the router's handlers
/// and the event loop's fast path alike, and for the fuzzer (``HTTPEdges``).
package enum APIInput {
    /// The `Idempotency-Key` a change runs under. A signed push (Standard Webhooks headers, no bearer token) is
    /// keyed by its `webhook-id`, which the signature covers (CONTRACT section 15): a captured push replayed, with
    /// or without a fresh `Idempotency-Key`, gets the first answer and changes nothing; an `Idempotency-Key` beside
    /// it must be the same (400 otherwise).
    package static func idempotencyKey(_ headers: HTTPFields) throws -> String? {
        let key = headers[.idempotencyKey]
        guard headers.bearerToken == nil, let id = headers[.webhookID] else { return key }
        if let key, key != id {
            throw Problem.validation(
                "a signed push is keyed by its webhook-id: Idempotency-Key must be the same or absent")
        }
        return id
    }

    /// An `Idempotency-Key` header's value, checked: 1 to 255 visible ASCII characters.
    package static func checked(idempotencyKey key: String) throws(Problem) -> String {
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw Problem(
                .badRequest, "validation", "Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID, say)")
        }
        return key
    }

    /// A change's body is JSON: a `Content-Type` that says otherwise (a form, text) is 415 `unsupported_media_type`;
    /// none at all is taken as JSON, as the tills that omit it have always been.
    package static func checkMediaType(_ contentType: String?) throws {
        // What a till sends, compared without a copy (this is asked of every change).
        guard let contentType, contentType != "application/json" else { return }
        let type = contentType.split(separator: ";", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces) ?? ""
        guard type.lowercased() == "application/json" else {
            throw Problem(
                .unsupportedMediaType, "unsupported_media_type",
                "the body must be application/json, not \(type.prefix(100))")
        }
    }

    /// `Last-Event-ID` as the sequence number to resume after: nil for none or empty (the SSE standard's way to reset
    /// it: a stream from now), else a whole number from 0, or 400.
    package static func lastEventID(_ header: String?) throws -> Int64? {
        guard let header, !header.isEmpty else { return nil }
        guard let seq = Int64(header), seq >= 0 else {
            throw Problem.validation("Last-Event-ID must be an event's seq, a whole number")
        }
        return seq
    }

    /// Whether an `If-None-Match` header names `tag` (or `*`).
    package static func matches(ifNoneMatch header: String?, tag: String) -> Bool {
        guard let header else { return false }
        return header.split(separator: ",").contains {
            let candidate = $0.trimmingCharacters(in: .whitespaces)
            return candidate == tag || candidate == "*"
        }
    }

    /// A JSON object body as parameters; an empty body is `{}` where `empty` allows it.
    package static func params(_ body: [UInt8], empty: Bool = false) throws -> Params {
        if empty, body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return Params() }
        let value: JSONValue
        do {
            value = try JSONParser.parse(body)
        } catch {
            throw Problem.validation("the body is not JSON: \(error)")
        }
        guard let members = value.objectValue else { throw Problem.validation("the body must be a JSON object") }
        return Params(members)
    }

    /// A query parameter as the socket's parameters type it: numbers as integers, the rest as text.
    package static func queryValue(_ name: String, _ value: String) -> JSONValue {
        if name == "limit" || name == "after", let number = Int64(value) { return .int(number) }
        return .string(value)
    }
}

extension HTTPFields {
    /// The token of `Authorization: Bearer TOKEN`, or nil (no such header, or another scheme): what a device
    /// authenticates with, read the way hummingbird-auth's `bearer` reads it.
    package var bearerToken: String? {
        guard let authorization = self[.authorization], authorization.hasPrefix("Bearer ") else { return nil }
        return String(authorization.dropFirst("Bearer ".count))
    }
}

extension HTTPField.Name {
    /// A signed push's id (Standard Webhooks), which keys it.
    package static let webhookID = Self("webhook-id")!
    /// A signed push's time, seconds since 1970.
    package static let webhookTimestamp = Self("webhook-timestamp")!
    /// A signed push's signatures, space-separated.
    package static let webhookSignature = Self("webhook-signature")!
    /// The key a change is made once under (CONTRACT section 15).
    package static let idempotencyKey = Self("Idempotency-Key")!
    /// Where a Server-Sent Events client resumes (`/v1/events`, the board's stream).
    package static let lastEventID = Self("Last-Event-ID")!
}

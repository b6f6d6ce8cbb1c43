package import HTTPTypes

/// An answer before it is HTTP: what the order API's routes return as Hummingbird's `Response`, and what its event
/// loop's fast path (`ChangesOnLoop`) writes itself on the connection.
package struct APIAnswer: Sendable {
    /// Its status.
    package var status: HTTPResponse.Status
    /// Its headers, `Content-Type` among them (`Content-Length` is the writer's).
    package var headers: HTTPFields
    /// Its body: an order, a problem.
    package var body: [UInt8]
    /// For a 500, the error it answers, for the log.
    package var failure: String?

    /// An answer of `status` with `headers` and `body`.
    package init(status: HTTPResponse.Status, headers: HTTPFields, body: [UInt8], failure: String? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.failure = failure
    }

    /// A JSON answer.
    package static func json(_ status: HTTPResponse.Status, _ bytes: [UInt8]) -> APIAnswer {
        APIAnswer(status: status, headers: [.contentType: "application/json"], body: bytes)
    }
}

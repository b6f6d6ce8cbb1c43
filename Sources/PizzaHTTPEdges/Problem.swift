package import HTTPTypes
package import PizzaCore
import PizzaWire

/// An order API error as RFC 9457 problem details (`application/problem+json`), whose `type` ends in the error's
/// name: the control socket's (`not_found`, `conflict`, …) or the API's own (`unauthenticated`, `rate_limited`,
/// `idempotency_key_reused`, …; CONTRACT section 15).
package struct Problem: Error, Sendable, Equatable {
    /// The HTTP status it answers with.
    package var status: HTTPResponse.Status
    /// The error's name, as on the socket.
    package var name: String
    /// What happened, in a sentence.
    package var detail: String
    /// Headers the answer carries besides its type (`Retry-After`, `WWW-Authenticate`).
    package var headers: HTTPFields
    /// For an internal error: the id its log line carries (the problem says nothing else of it).
    package var requestId: String?
    /// For an internal error: what happened, for the log alone, never the answer.
    package var logged: String?
    /// For an item off the menu: the field that named it, the item and the reason (`unavailable`), as members.
    package var item: RefusedItem?

    /// An item a request named that is off the menu.
    package struct RefusedItem: Sendable, Equatable {
        package var field: String
        package var item: String
        package var reason: String
    }

    /// A problem named `name` (`not_found`) answered with `status`.
    package init(_ status: HTTPResponse.Status, _ name: String, _ detail: String, headers: HTTPFields = [:]) {
        self.status = status
        self.name = name
        self.detail = detail
        self.headers = headers
    }

    /// `urn:pizzad:problem:not_found`.
    package var type: String { "urn:pizzad:problem:" + name }

    /// The answer: `{type, title, status, detail}` as `application/problem+json`.
    package var answer: APIAnswer {
        var writer = JSONWriter(capacity: 128 + detail.utf8.count)
        writer.open()
        writer.member("type", type)
        writer.member("title", name.replacingUnderscores)
        writer.member("status", Int64(status.code))
        writer.member("detail", detail)
        if let item {
            writer.member("field", item.field)
            writer.member("item", item.item)
            writer.member("reason", item.reason)
        }
        if let requestId { writer.member("requestId", requestId) }
        writer.close()
        var fields = headers
        fields[.contentType] = "application/problem+json"
        return APIAnswer(
            status: status, headers: fields, body: Array(writer.text.utf8),
            failure: logged.map { "\($0) (request \(requestId ?? "-"))" })
    }

    /// An internal error: 500 `internal_error` whose answer says nothing of `error` but a request id, which the
    /// log line with `error` carries (CONTRACT section 15).
    package static func `internal`(_ error: String) -> Problem {
        let id = String((0..<16).map { _ in "0123456789abcdef".randomElement()! })
        var problem = Problem(
            .internalServerError, "internal_error", "an internal error; the daemon's log names it with request \(id)")
        problem.requestId = id
        problem.logged = error
        return problem
    }

    package static func unauthenticated(_ detail: String) -> Problem {
        Problem(.unauthorized, "unauthenticated", detail, headers: [.wwwAuthenticate: "Bearer realm=\"pizzad\""])
    }

    package static func rateLimited(_ detail: String, retryAfter seconds: Int) -> Problem {
        Problem(.tooManyRequests, "rate_limited", detail, headers: [.retryAfter: String(max(1, seconds))])
    }

    package static func denied(_ detail: String) -> Problem { Problem(.forbidden, "permission_denied", detail) }

    package static func validation(_ detail: String) -> Problem { Problem(.badRequest, "validation", detail) }

    package static func notFound(_ detail: String) -> Problem { Problem(.notFound, "not_found", detail) }

    /// A domain error as the API answers it: its kind's name, the HTTP status the contract gives that kind.
    package static func from(_ failure: any DomainFailure) -> Problem {
        let status: HTTPResponse.Status =
            switch failure.kind {
            case .notFound: .notFound
            case .invalidTransition, .conflict: .conflict
            case .validation: .badRequest
            case .permissionDenied: .forbidden
            case .storage, .overloaded: .serviceUnavailable
            case .internal: .internalServerError
            }
        if failure.kind == .internal { return .internal(failure.explanation) }
        var problem = Problem(status, failure.kind.rawValue, failure.explanation)
        let details = failure.details
        if let field = details.field, let item = details.item, let reason = details.reason {
            problem.item = RefusedItem(field: field, item: item, reason: reason)
        }
        return problem
    }
}

extension String {
    /// `not_found` → `not found`.
    fileprivate var replacingUnderscores: String { String(map { $0 == "_" ? " " : $0 }) }
}

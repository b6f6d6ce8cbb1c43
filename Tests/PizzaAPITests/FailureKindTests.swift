import HTTPTypes
import PizzaCore
import PizzaHTTPEdges
import PizzaProtocol
import Testing

@testable import PizzaAPI

/// Each kind of failure is one code on the control socket (CONTRACT section 4) and one HTTP status on the order API
/// (section 15), with the same name in both.
@Suite("One error, its kind said once")
struct FailureKindTests {
    struct Failure: DomainFailure {
        let kind: FailureKind
        var details: FailureDetails { FailureDetails(field: "items", allowed: ["a"]) }
        var description: String { "it failed" }
    }

    @Test("each kind's socket code and HTTP status", arguments: FailureKind.allCases)
    func mapping(_ kind: FailureKind) {
        let expected: (RPCErrorCode, HTTPResponse.Status) =
            switch kind {
            case .notFound: (.notFound, .notFound)
            case .invalidTransition: (.invalidTransition, .conflict)
            case .conflict: (.conflict, .conflict)
            case .validation: (.validation, .badRequest)
            case .permissionDenied: (.permissionDenied, .forbidden)
            case .storage: (.storage, .serviceUnavailable)
            case .overloaded: (.overloaded, .serviceUnavailable)
            case .internal: (.internalError, .internalServerError)
            }
        let rpc = RPCError(Failure(kind: kind))
        #expect(rpc.code == expected.0)
        #expect(rpc.message == "it failed")
        #expect(rpc.data == ["field": "items", "allowed": ["a"]])
        let problem = Problem.from(Failure(kind: kind))
        #expect(problem.status == expected.1)
        if kind != .internal { #expect(rpc.code.name == kind.rawValue && problem.name == kind.rawValue) }
    }

    @Test("a domain error's details are the socket's data, in the order they were")
    func orderErrors() {
        let conflict = RPCError(OrderError.conflict(id: 7, expected: .placed, actual: .baking))
        #expect(conflict.data == ["expected": "placed", "status": "baking"])
        let empty = RPCError(OrderError.emptyCart(id: 7))
        #expect(empty.code == .invalidTransition && empty.data == ["field": "items"])
        #expect(RPCError(OrderError.notFound("7")).data == nil)
    }
}

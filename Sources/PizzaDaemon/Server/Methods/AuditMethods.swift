import PizzaCore
import PizzaProtocol
import PizzaStorage
import PizzaWire

extension RPCDispatcher {
    /// `audit.*`: the hash-chained log.
    static func addAuditMethods(to table: inout MethodTable, _ state: DaemonState) {
        let store = state.store
        table.addImmediate(.auditList, .reader) { params, _ in
            try params.onlyKnown(["after", "limit", "order"])
            let limit = try OrderQuery.checkedLimit(try params.int("limit") ?? 100)
            let entries = try store.auditEntries(
                after: try params.int("after") ?? 0, limit: Int(limit), order: try params.int("order"))
            return [
                "entries": .array(entries.map(\.wire)),
                "next": entries.count == Int(limit) ? .int(entries.last?.seq) : .null,
            ]
        }
        table.add(.auditVerify, .reader) { params, _ in
            try params.onlyKnown([])
            let result = try store.verifyAudit()
            return [
                "ok": .bool(result.ok), "entries": .int(Int64(result.entries)), "firstBad": .int(result.firstBad),
                "problem": .string(result.problem),
            ]
        }
    }
}

extension AuditEntry {
    /// A stored order in the one wire form `order.get` answers (entries written before 0.2 nest each item's pizza
    /// and lack `total`; they read the same); text that is no order is sent as it parses, or null.
    private static func order(_ text: String) -> JSONValue {
        guard let parsed = try? JSONParser.parse(text) else { return .null }
        return (try? Cart(wire: parsed).wire) ?? parsed
    }

    /// The entry as `audit.list` sends it.
    var wire: JSONValue {
        .object([
            ("seq", .int(seq)), ("at", .string(at)), ("actor", actor.wire), ("action", .string(action)),
            ("order", .int(orderID)), ("status", .string(statusAfter)), ("reason", .string(reason)),
            ("before", before.map(Self.order) ?? .null),
            ("after", Self.order(after)),
            ("hash", .string(hash)),
        ])
    }
}

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
            return try AuditListAnswer(
                entries: entries.map(\.answer), next: entries.count == Int(limit) ? entries.last?.seq : nil
            ).json
        }
        table.add(.auditVerify, .reader) { params, _ in
            try params.onlyKnown([])
            let result = try store.verifyAudit()
            return try AuditVerifyAnswer(
                ok: result.ok, entries: Int64(result.entries), firstBad: result.firstBad, problem: result.problem
            ).json
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
    var answer: AuditEntryAnswer {
        AuditEntryAnswer(
            seq: seq, at: at, actor: actor, action: action, order: orderID, status: statusAfter, reason: reason,
            before: before.map(Self.order), after: Self.order(after), hash: hash)
    }
}

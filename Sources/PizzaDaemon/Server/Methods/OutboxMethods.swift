import PizzaCore
import PizzaOutbox
import PizzaProtocol
import PizzaWire

extension RPCDispatcher {
    /// `outbox.*` and `order.print`: the printers and webhooks (CONTRACT section 16).
    static func addOutboxMethods(to table: inout MethodTable, _ state: DaemonState) {
        table.addImmediate(.outboxList, .reader) { params, _ in
            try params.onlyKnown([])
            return ["destinations": .array(state.outbox?.statuses().map(\.wire) ?? [])]
        }
        table.addImmediate(.outboxRetry, .operator) { params, _ in
            try params.onlyKnown(["name"])
            let name = try params.requiredString("name")
            guard let outbox = state.outbox, outbox.retry(name) else {
                throw RPCError(.notFound, "no printer or webhook named \(name)", data: ["field": "name"])
            }
            return ["name": .string(name), "retrying": true]
        }
        table.add(.orderPrint, .operator) { params, _ in
            try params.onlyKnown(["id", "printer", "preview"])
            let id = try params.requiredInt("id")
            let only = try params.string("printer")
            let preview = try params.bool("preview") ?? false
            guard let outbox = state.outbox, !outbox.printerNames.isEmpty else {
                throw RPCError(
                    .validation, "no printer is configured (printers: in pizzad.yaml)", data: ["field": "printer"])
            }
            if let only, !outbox.printerNames.contains(only) {
                throw RPCError.validation("printer", "no printer named \(only)", allowed: outbox.printerNames)
            }
            let cart = try state.repository.cart(id: id)
            var results: [JSONValue] = []
            for name in outbox.printerNames where only == nil || only == name {
                guard let ticket = outbox.ticket(for: cart, printer: name) else {
                    results.append(["printer": .string(name), "skipped": "none of its kinds is on the order"])
                    continue
                }
                if preview {
                    results.append(["printer": .string(name), "text": .string(ticket.text)])
                } else {
                    let error = await outbox.print(ticket, on: name)
                    results.append(["printer": .string(name), "printed": .bool(error == nil), "error": .string(error)])
                }
            }
            return ["id": .int(id), "tickets": .array(results)]
        }
    }
}

extension OutboxStatus {
    /// The status as `outbox.list` sends it.
    var wire: JSONValue {
        [
            "name": .string(name), "kind": .string(kind), "target": .string(target), "state": .string(state.rawValue),
            "deliveredSeq": .int(deliveredSeq), "waiting": .int(waiting),
            "oldestWaitingAt": .string(oldestWaitingAt?.description),
            "failingSince": .string(failingSince?.description),
            "lastError": .string(lastError), "nextAttemptAt": .string(nextAttemptAt?.description),
            "disabledAt": .string(disabledAt?.description), "disabledReason": .string(disabledReason),
            "printer": .string(printer?.rawValue), "delivered": .int(delivered), "failed": .int(failed),
        ]
    }
}

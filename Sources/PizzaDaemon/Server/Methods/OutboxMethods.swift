import PizzaCore
import PizzaOutbox
import PizzaProtocol
import PizzaWire

extension RPCDispatcher {
    /// `outbox.*` and `order.print`: the printers and webhooks (CONTRACT section 16).
    static func addOutboxMethods(to table: inout MethodTable, _ state: DaemonState) {
        table.addImmediate(.outboxList, .reader) { params, _ in
            try params.onlyKnown([])
            return try OutboxListAnswer(destinations: state.outbox?.statuses().map(\.answer) ?? []).json
        }
        table.addImmediate(.outboxRetry, .operator) { params, _ in
            try params.onlyKnown(["name"])
            let name = try params.requiredString("name")
            guard let outbox = state.outbox, outbox.retry(name) else {
                throw RPCError(.notFound, "no printer or webhook named \(name)", data: ["field": "name"])
            }
            return try OutboxRetryAnswer(name: name).json
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
            var tickets: [PrintAnswer.Ticket] = []
            for name in outbox.printerNames where only == nil || only == name {
                guard let ticket = outbox.ticket(for: cart, printer: name) else {
                    tickets.append(.init(printer: name, .skipped("none of its kinds is on the order")))
                    continue
                }
                if preview {
                    tickets.append(.init(printer: name, .preview(ticket.text)))
                } else {
                    tickets.append(.init(printer: name, .printed(error: await outbox.print(ticket, on: name))))
                }
            }
            return try PrintAnswer(id: id, tickets: tickets).json
        }
    }
}

extension OutboxStatus {
    /// The status as `outbox.list` sends it.
    var answer: OutboxDestinationAnswer {
        OutboxDestinationAnswer(
            name: name, kind: kind, target: target, state: state.rawValue, deliveredSeq: deliveredSeq,
            waiting: waiting, oldestWaitingAt: oldestWaitingAt?.description, failingSince: failingSince?.description,
            lastError: lastError, nextAttemptAt: nextAttemptAt?.description, disabledAt: disabledAt?.description,
            disabledReason: disabledReason, printer: printer?.rawValue, delivered: delivered, failed: failed)
    }
}

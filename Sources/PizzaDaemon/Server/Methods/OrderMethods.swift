import PizzaCore
import PizzaProtocol
import PizzaStorage
import PizzaWire

extension RPCDispatcher {
    /// `order.*`: every change goes through the repository (each handler says which change; the dispatcher submits
    /// it); reads are one short query.
    static func addOrderMethods(to table: inout MethodTable, _ state: DaemonState) {
        let repository = state.repository
        table.addChange(.create, .operator) { params in try .create(params, factory: state.factory) }
        table.addChange(.addItem, .operator) { params in try .addItem(params, factory: state.factory) }
        table.addChange(.removeItem, .operator) { params in
            try params.onlyKnown(["id", "item"])
            return .removeItem(try params.requiredInt("item"), order: try params.requiredInt("id"))
        }
        table.addChange(.place, .operator) { params in
            try params.onlyKnown(["id"])
            return .place(order: try params.requiredInt("id"))
        }
        table.addChange(.advance, .operator) { params in
            try params.onlyKnown(["id", "from"])
            return .advance(order: try params.requiredInt("id"), from: try params.status("from"))
        }
        table.addChange(.cancel, .operator) { params in
            try params.onlyKnown(["id", "reason"])
            return try .cancel(order: try params.requiredInt("id"), params)
        }
        table.addChange(.setFulfilment, .operator) { params in
            try params.onlyKnown(["id", "fulfilment"])
            return try .setFulfilment(
                order: try params.requiredInt("id"), params["fulfilment"], factory: state.factory)
        }
        table.addChange(.discount, .operator) { params in
            try params.onlyKnown(["id", "amount", "percent", "item", "reason"])
            return try .discount(order: try params.requiredInt("id"), params)
        }
        table.addChange(.pay, .operator) { params in
            try params.onlyKnown(["id", "tender", "amount", "ref"])
            return try .pay(order: try params.requiredInt("id"), params)
        }
        table.addChange(.refund, .operator) { params in
            try params.onlyKnown(["id", "payment", "amount", "reason"])
            return try .refund(order: try params.requiredInt("id"), params)
        }
        table.addImmediate(.get, .reader) { params, _ in
            try params.onlyKnown(["id", "ref"])
            if let id = try params.int("id") { return try repository.cart(id: id).wire }
            if let ref = try params.string("ref") { return try repository.cart(ref: ref).wire }
            throw RPCError.invalidParams("id", "order.get needs id or ref", expected: "integer id or string ref")
        }
        table.addImmediate(.list, .reader) { params, _ in
            try params.onlyKnown(["status", "since", "limit", "after", "type", "sort"])
            let limit = try params.int("limit") ?? 50  // checked by the repository (OrderQuery.checkedLimit)
            let page = try repository.list(
                OrderQuery(
                    status: try params.status("status"), since: try params.timestamp("since"), limit: Int(limit),
                    after: try params.int("after"), type: try params.fulfilmentType("type"),
                    sort: try params.sort("sort")))
            return try OrderListAnswer(orders: page.orders, next: page.next).json
        }
    }
}

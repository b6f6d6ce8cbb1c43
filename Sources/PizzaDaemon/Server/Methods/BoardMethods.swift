import PizzaCore
import PizzaProtocol
import PizzaStorage
import PizzaWire

extension RPCDispatcher {
    /// `board.snapshot`: what `pizzactl board` starts from: the orders on the board (placed to shipped), the newest
    /// sequence number they reflect (follow with `events.watch` `after` it: nothing lost, nothing twice), and the
    /// board's settings (`showCustomer`, the warn and late marks per status).
    static func addBoardMethods(to table: inout MethodTable, _ state: DaemonState) {
        let store = state.store
        let settings = state.board
        table.add(.boardSnapshot, .reader) { params, _ in
            try params.onlyKnown([])
            let snapshot = try store.boardSnapshot()
            let orders = snapshot.orders.map { order in
                var order = order
                if !settings.showCustomer { order.customer = nil }
                return order
            }
            return try BoardSnapshotAnswer(
                seq: snapshot.seq, board: settings.view, orders: orders, now: Timestamp.now().description,
                printers: state.printers(), unavailable: state.repository.availability.unavailable
            ).json
        }
    }
}

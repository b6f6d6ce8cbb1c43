import FoundationEssentials
import Glibc
import PizzaCore
import PizzaProtocol
import PizzaWire

/// What `pizzactl board` shows: the tickets on the board, which one is selected, the recall list, the status line.
/// Changed only on the main actor.
@MainActor
final class BoardModel {
    static let columns: [OrderStatus] = OrderStatus.onBoard
    static let recallLength = 8

    /// The orders on the board by id, read from what the daemon sent with `Cart(wire:)`.
    var orders: [Int64: Cart] = [:]
    /// The last event seen (follow after it when reconnecting).
    var lastSeq: Int64 = 0
    var showCustomer = true
    var thresholds: [OrderStatus: (warn: Double, late: Double)] = [:]
    var column = 0
    var row = 0
    /// The tickets that last left the board: delivered or cancelled, newest first.
    var recall: [Cart] = []
    var showingRecall = false
    var connected = false
    var status = "connecting…"
    /// While asking for a cancellation's reason: the order and what has been typed.
    var cancelling: (id: Int64, reason: String)?
    /// The kitchen printers that cannot print now, as the header shows them (`kitchen: paper out`).
    var printerProblems: [String] = []

    /// Takes in `outbox.list`: the printers whose last status was not ready.
    func apply(outbox: OutboxListAnswer) {
        printerProblems = outbox.destinations.compactMap { destination in
            guard destination.kind == .printer, let status = destination.printer, status != "online" else { return nil }
            return "\(destination.name): \(status.replacing("_", with: " "))"
        }
    }

    /// The items taken off the menu ("86"), as the header lists them.
    var unavailable: Set<String> = []

    /// Takes in the daemon's snapshot: settings, orders, the sequence number to follow from.
    func load(snapshot: BoardSnapshotAnswer) {
        lastSeq = snapshot.seq
        unavailable = Set(snapshot.unavailable)
        apply(settings: snapshot.board)
        orders = Dictionary(snapshot.orders.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
    }

    func apply(settings: BoardView) {
        showCustomer = settings.showCustomer
        for marks in settings.thresholds.members {
            if let status = OrderStatus(rawValue: marks.name) {
                thresholds[status] = (Double(marks.value.warn), Double(marks.value.late))
            }
        }
    }

    /// An event that belongs to no order: an item taken off the menu or put back (a Z report changes no ticket).
    func apply(shop event: ShopEventAnswer) {
        lastSeq = max(lastSeq, event.seq)
        if let item = event.item {
            if item.available { unavailable.remove(item.name) } else { unavailable.insert(item.name) }
        }
    }

    /// One event from `events.watch`.
    func apply(event: EventAnswer) {
        let order = event.order
        lastSeq = max(lastSeq, event.seq)
        if Self.columns.contains(order.status) {
            orders[order.id] = order
        } else {
            if orders.removeValue(forKey: order.id) != nil, order.status.isFinal {
                recall.insert(order, at: 0)
                if recall.count > Self.recallLength { recall.removeLast() }
            }
        }
        clampSelection()
    }

    /// The tickets of column `index`, the soonest due first (an order for as soon as possible is due when it was
    /// placed), then the longest-waiting.
    func tickets(in index: Int) -> [Cart] {
        let status = Self.columns[index]
        return orders.values.filter { $0.status == status }
            .sorted { (Self.due($0), Self.entered($0)) < (Self.due($1), Self.entered($1)) }
    }

    var selected: Cart? {
        let list = tickets(in: column)
        return list.indices.contains(row) ? list[row] : nil
    }

    func move(_ key: Terminal.Key) {
        switch key {
        case .left: column = (column + Self.columns.count - 1) % Self.columns.count
        case .right: column = (column + 1) % Self.columns.count
        case .up: row = max(0, row - 1)
        case .down: row += 1
        default: break
        }
        clampSelection()
    }

    func clampSelection() { row = max(0, min(row, tickets(in: column).count - 1)) }

    /// When the order entered its status (its last history entry to it), in seconds since 1970.
    static func entered(_ order: Cart) -> Double {
        seconds(order.history.last { $0.to == order.status }?.at ?? order.updatedAt)
    }

    /// When the order was placed.
    static func placed(_ order: Cart) -> Double {
        seconds(order.history.first { $0.to == .placed }?.at ?? order.createdAt)
    }

    /// When the order is wanted: its `dueAt`, or when it was placed for as soon as possible.
    static func due(_ order: Cart) -> Double { order.fulfilment.dueAt.map(seconds) ?? placed(order) }

    static func seconds(_ time: Timestamp) -> Double { Double(time.millisecondsSince1970) / 1000 }

    /// `2× chicken L thin +olives`, for each pizza, then each product (`2× Cola 0.33 l`), in the order added.
    static func items(_ order: Cart) -> String {
        let pizzas = order.items.map { ($0.id, $0.pizza.onBoard) }
        let products = order.products.map { ($0.id, Output.safe($0.product.inShort)) }
        return (pizzas + products).sorted { $0.0 < $1.0 }.map(\.1).joined(separator: ", ")
    }

    /// How the order leaves and when, for its ticket: `delivery 19:30, 4:10 late`; nil for a pickup as soon as
    /// possible.
    static func fulfilment(_ order: Cart, now: Double) -> String? {
        let fulfilment = order.fulfilment
        var text: String
        switch fulfilment.type {
        case .pickup: text = "pickup"
        case .delivery: text = "delivery"
        case .dinein: text = "table " + Output.safe(fulfilment.table ?? "?")
        }
        guard let due = fulfilment.dueAt else { return fulfilment.type == .pickup ? nil : text }
        text += " " + String(Output.time(due).suffix(8).prefix(5))
        let late = now - seconds(due)
        if late > 0 { text += ", " + BoardScreen.minutes(late) + " late" }
        return text
    }

    /// Pizzas by kind in the kitchen now (placed to boxed).
    var allDay: String {
        var kinds: [String: Int64] = [:]
        for order in orders.values where order.status != .shipped {
            for item in order.items { kinds[item.pizza.kind, default: 0] += Int64(item.pizza.quantity) }
        }
        let text = kinds.sorted { $0.key < $1.key }.map { "\($0.value)× \($0.key)" }.joined(separator: " · ")
        return text.isEmpty ? "nothing in the kitchen" : text
    }
}

import Foundation
import PizzaCore
import PizzaProtocol
import PizzaWire

/// What `pizzactl board` shows: the tickets on the board, which one is selected, the recall list, the status line.
/// Changed only on the main actor.
@MainActor
final class BoardModel {
    static let columns: [String] = OrderStatus.onBoard.map(\.rawValue)
    static let recallLength = 8

    /// The orders on the board by id, as the daemon sent them.
    var orders: [Int64: JSONValue] = [:]
    /// The last event seen (follow after it when reconnecting).
    var lastSeq: Int64 = 0
    var showCustomer = true
    var thresholds: [String: (warn: Double, late: Double)] = [:]
    var column = 0
    var row = 0
    /// The tickets that last left the board: delivered or cancelled, newest first.
    var recall: [JSONValue] = []
    var showingRecall = false
    var connected = false
    var status = "connecting…"
    /// While asking for a cancellation's reason: the order and what has been typed.
    var cancelling: (id: Int64, reason: String)?
    /// The kitchen printers that cannot print now, as the header shows them (`kitchen: paper out`).
    var printerProblems: [String] = []

    /// Takes in `outbox.list`: the printers whose last status was not ready.
    func apply(outbox: JSONValue) {
        printerProblems = (outbox["destinations"]?.arrayValue ?? []).compactMap { destination in
            guard destination["kind"]?.stringValue == "printer",
                let status = destination["printer"]?.stringValue, status != "online"
            else { return nil }
            return "\(destination["name"]?.stringValue ?? "?"): \(status.replacingOccurrences(of: "_", with: " "))"
        }
    }

    /// Takes in the daemon's snapshot: settings, orders, the sequence number to follow from.
    func load(snapshot: JSONValue) {
        lastSeq = snapshot["seq"]?.intValue ?? 0
        if let board = snapshot["board"] { apply(settings: board) }
        orders = [:]
        for order in snapshot["orders"]?.arrayValue ?? [] {
            if let id = order["id"]?.intValue { orders[id] = order }
        }
    }

    func apply(settings: JSONValue) {
        showCustomer = settings["showCustomer"]?.boolValue ?? true
        for (status, marks) in settings["thresholds"]?.objectValue ?? [] {
            let pair = marks.arrayValue ?? []
            if pair.count == 2, let warn = pair[0].intValue, let late = pair[1].intValue {
                thresholds[status] = (Double(warn), Double(late))
            }
        }
    }

    /// One event from `events.watch`.
    func apply(event: JSONValue) {
        guard let order = event["order"], let id = order["id"]?.intValue,
            let status = order["status"]?.stringValue
        else { return }
        lastSeq = max(lastSeq, event["seq"]?.intValue ?? 0)
        if Self.columns.contains(status) {
            orders[id] = order
        } else {
            if orders.removeValue(forKey: id) != nil, status == "delivered" || status == "cancelled" {
                recall.insert(order, at: 0)
                if recall.count > Self.recallLength { recall.removeLast() }
            }
        }
        clampSelection()
    }

    /// The tickets of column `index`, longest-waiting first.
    func tickets(in index: Int) -> [JSONValue] {
        let status = Self.columns[index]
        return orders.values.filter { $0["status"]?.stringValue == status }
            .sorted { Self.entered($0) < Self.entered($1) }
    }

    var selected: JSONValue? {
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
    static func entered(_ order: JSONValue) -> Double {
        let status = order["status"]?.stringValue
        let history = order["history"]?.arrayValue ?? []
        let at = history.last { $0["to"]?.stringValue == status }?["at"]?.stringValue ?? order["updatedAt"]?.stringValue
        return seconds(at)
    }

    /// When the order was placed.
    static func placed(_ order: JSONValue) -> Double {
        let history = order["history"]?.arrayValue ?? []
        return seconds(
            history.first { $0["to"]?.stringValue == "placed" }?["at"]?.stringValue ?? order["createdAt"]?.stringValue)
    }

    static func seconds(_ text: String?) -> Double {
        guard let text, let time = Timestamp(iso8601: text) else { return 0 }
        return Double(time.millisecondsSince1970) / 1000
    }

    /// `2× chicken L thin +olives`, for each pizza.
    static func items(_ order: JSONValue) -> String {
        (order["items"]?.arrayValue ?? []).map { item in
            (try? CartItem(wire: item))?.pizza.onBoard ?? "?"
        }.joined(separator: ", ")
    }

    /// Pizzas by kind in the kitchen now (placed to boxed).
    var allDay: String {
        var kinds: [String: Int64] = [:]
        for order in orders.values where order["status"]?.stringValue != "shipped" {
            for item in order["items"]?.arrayValue ?? [] {
                kinds[item["kind"]?.stringValue ?? "?", default: 0] += item["quantity"]?.intValue ?? 1
            }
        }
        let text = kinds.sorted { $0.key < $1.key }.map { "\($0.value)× \($0.key)" }.joined(separator: " · ")
        return text.isEmpty ? "nothing in the kitchen" : text
    }
}

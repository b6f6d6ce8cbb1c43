import Foundation
import PizzaCore
import PizzaProtocol
import PizzaWire

/// How pizzactl shows things to people: aligned tables, money with its currency, local times.
enum Output {
    static func error(_ message: String) {
        FileHandle.standardError.write(Data("pizzactl: \(message)\n".utf8))
    }

    /// Prints `rows` under `headers` in aligned columns; columns listed in `right` are right-aligned.
    static func table(_ headers: [String], _ rows: [[String]], right: Set<Int> = []) {
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: max(0, widths[index] - cell.count))
                return right.contains(index) ? pad + cell : cell + pad
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        print(line(headers))
        for row in rows { print(line(row)) }
    }

    /// `2150` and `EUR` → `21.50 EUR`.
    static func money(_ cents: Int64?, _ currency: String?) -> String {
        guard let cents else { return "-" }
        let sign = cents < 0 ? "-" : ""
        let value = abs(cents)
        let fraction = value % 100
        return "\(sign)\(value / 100).\(fraction < 10 ? "0" : "")\(fraction) \(currency ?? "")".trimmingCharacters(
            in: .whitespaces)
    }

    /// An ISO-8601 UTC time in the local time zone, `2026-11-21 10:30:00`.
    static func time(_ iso: String?) -> String {
        guard let iso, let stamp = Timestamp(iso8601: iso) else { return iso ?? "-" }
        var seconds = time_t(stamp.millisecondsSince1970 / 1000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }

    /// Flushes standard output (a watch piped into another program must not wait for a full buffer).
    static func flush() { fflush(nil) }

    /// A status in words.
    static func status(_ status: String?) -> String {
        guard let status, let known = OrderStatus(rawValue: status) else { return status ?? "-" }
        return switch known {
        case .open: "open (being filled)"
        case .placed: "placed"
        case .preparing: "being prepared"
        case .baking: "in the oven"
        case .boxed: "boxed"
        case .shipped: "out for delivery"
        case .delivered: "delivered"
        case .cancelled: "cancelled"
        }
    }

    /// Who made a change: `alice (uid 1000, pid 42)`, or for the order API `device till-1 from 192.0.2.7:53122`.
    static func actor(_ actor: JSONValue?, uid: Bool) -> String {
        if let device = actor?["device"]?.stringValue {
            return "device \(device)" + (actor?["address"]?.stringValue.map { " from \($0)" } ?? "")
        }
        let process = uid ? "uid \(text(actor?["uid"])), pid \(text(actor?["pid"]))" : "pid \(text(actor?["pid"]))"
        return "\(text(actor?["name"])) (\(process))"
    }

    static func text(_ value: JSONValue?) -> String {
        switch value {
        case .string(let s)?: s
        case .int(let i)?: String(i)
        case .double(let d)?: String(d)
        case .bool(let b)?: b ? "yes" : "no"
        case .null?, nil: "-"
        default: value!.jsonText
        }
    }

    /// A pizza line in words (``Pizza/inShort``: `chicken L thin, chili, +olives`), from the item's wire form.
    static func pizza(_ item: JSONValue) -> String {
        (try? CartItem(wire: item))?.pizza.inShort ?? item.jsonText
    }

    /// The whole order: header, items, total, history.
    static func order(_ order: JSONValue) {
        let currency = order["currency"]?.stringValue
        var header = "Order \(text(order["id"])): \(status(order["status"]?.stringValue))"
        if let customer = order["customer"]?.stringValue { header += " for \(customer)" }
        if let ref = order["ref"]?.stringValue { header += " (ref \(ref))" }
        print(header)
        if let note = order["note"]?.stringValue { print("Note: \(note)") }
        let items = order["items"]?.arrayValue ?? []
        if items.isEmpty {
            print("No pizzas yet.")
        } else {
            table(
                ["ITEM", "PIZZA", "QTY", "EACH", "PRICE"],
                items.map { item in
                    [
                        text(item["id"]), pizza(item), text(item["quantity"]),
                        money(item["unitPrice"]?.intValue, currency),
                        money(item["price"]?.intValue, currency),
                    ]
                }, right: [0, 2, 3, 4])
        }
        print("Total: \(money(order["total"]?.intValue, currency))")
        let history = order["history"]?.arrayValue ?? []
        if !history.isEmpty {
            print("History:")
            table(
                ["TIME", "CHANGE", "BY", "REASON"],
                history.map { entry in
                    let from = entry["from"]?.stringValue
                    let change = from.map { "\($0) → \(text(entry["to"]))" } ?? "created"
                    return [
                        time(entry["at"]?.stringValue), change,
                        actor(entry["actor"], uid: false), text(entry["reason"]),
                    ]
                })
        }
    }
}

import FoundationEssentials
import Glibc
import PizzaCore
import PizzaProtocol
import PizzaWire

/// How pizzactl shows things to people: aligned tables, money with its currency, local times.
enum Output {
    static func error(_ message: String) { write("pizzactl: \(message)\n", to: STDERR_FILENO) }

    /// Writes all of `text` to the descriptor (standard output or error), unbuffered.
    static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// `text` without the white space at either end.
    static func trimmed(_ text: String) -> String {
        String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
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
            let line = cells.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: max(0, widths[index] - cell.count))
                return right.contains(index) ? pad + cell : cell + pad
            }.joined(separator: "  ")
            return String(line.reversed().drop { $0.isWhitespace }.reversed())
        }
        print(line(headers))
        for row in rows { print(line(row)) }
    }

    /// `2150` and `EUR` → `21.50 EUR`.
    static func money(_ cents: Int64?, _ currency: String?) -> String {
        guard let cents else { return "-" }
        let sign = cents < 0 ? "-" : ""
        let value = cents.magnitude  // Int64.min has no abs: read from the daemon, it prints, not traps
        let fraction = value % 100
        return trimmed("\(sign)\(value / 100).\(fraction < 10 ? "0" : "")\(fraction) \(currency ?? "")")
    }

    /// An ISO-8601 UTC time in the local time zone, `2026-11-21 10:30:00`.
    static func time(_ iso: String?) -> String {
        guard let iso, let stamp = Timestamp(iso8601: iso) else { return iso ?? "-" }
        return time(stamp)
    }

    /// A time in the local time zone, `2026-11-21 10:30:00`.
    static func time(_ stamp: Timestamp) -> String {
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
        return self.status(known)
    }

    /// A status in words.
    static func status(_ status: OrderStatus) -> String {
        switch status {
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

    /// Who made a change: `alice (pid 42)`, or for the order API `device till-1 from 192.0.2.7:53122`.
    static func actor(_ actor: ChangeActor) -> String {
        if let device = actor.device {
            return "device \(safe(device))" + (actor.address.map { " from \(safe($0))" } ?? "")
        }
        return "\(safe(actor.name)) (pid \(actor.pid))"
    }

    /// Text that came from the daemon, anything unprintable in it shown as an escape (`\u{1B}`): the daemon refuses
    /// such text now, but an entry written before, or a damaged copy, must not drive the terminal.
    static func safe(_ text: String) -> String { ShopText.escaped(text) }

    /// Who made a change: `alice (uid 1000, pid 42)`, or for the order API `device till-1 from 192.0.2.7:53122`.
    static func actor(_ actor: ChangeActor, uid: Bool) -> String {
        if actor.device != nil { return self.actor(actor) }
        return "\(safe(actor.name)) (\(uid ? "uid \(actor.uid), " : "")pid \(actor.pid))"
    }

    /// The whole order: header, items, total, history, read with `Cart(wire:)` as the daemon wrote it. An answer
    /// that is not an order this pizzactl can read is said, and shown as it came.
    static func order(_ answer: JSONValue) {
        let order: Cart
        do {
            order = try Cart(wire: answer)
        } catch {
            self.error("the answer is not an order this pizzactl can read (\(error)); as it came:")
            print(answer.jsonText)
            return
        }
        var header = "Order \(order.id): \(status(order.status))"
        if let customer = order.customer { header += " for \(safe(customer))" }
        if let ref = order.ref { header += " (ref \(safe(ref)))" }
        print(header)
        if let note = order.note { print("Note: \(ShopText.escaped(note, lineFeeds: true))") }
        if let fulfilment = fulfilmentLine(order.fulfilment) { print(fulfilment) }
        if order.items.isEmpty && order.products.isEmpty {
            print("No items yet.")
        } else {
            table(["ITEM", "WHAT", "QTY", "EACH", "PRICE", "VAT"], lines(order), right: [0, 2, 3, 4])
        }
        figures(order)
        if !order.history.isEmpty {
            print("History:")
            table(
                ["TIME", "CHANGE", "BY", "REASON"],
                order.history.map { entry in
                    [
                        time(entry.at), entry.from.map { "\($0.rawValue) → \(entry.to.rawValue)" } ?? "created",
                        actor(entry.actor), entry.reason.map(safe) ?? "-",
                    ]
                })
        }
    }
}

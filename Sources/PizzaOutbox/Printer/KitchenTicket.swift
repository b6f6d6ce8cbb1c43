public import Foundation
public import PizzaCore

/// A ticket as the kitchen reads it, in lines, before it becomes a printer's bytes (``EscPos``): the order number
/// large, the time, the customer, each pizza with its size, crust, sauces and extras, the note; a cancellation says so
/// and why. `pizzactl order print --preview` shows ``text``.
public struct KitchenTicket: Sendable, Equatable {
    /// How a line is printed.
    public enum Style: Sendable, Equatable {
        case normal
        /// Bold.
        case bold
        /// Double width and height, centred: the order number, REPRINT, CANCELLED.
        case large
    }

    /// One printed line (never wider than the printer's columns, or half of them when large).
    public struct Line: Sendable, Equatable {
        /// What is printed.
        public var text: String
        /// How.
        public var style: Style
    }

    /// The ticket, top to bottom.
    public var lines: [Line]

    /// The ticket for `cart` entering `event` (a kitchen ticket, or a cancellation for `.cancelled`), listing only
    /// the pizzas of `kinds` (all when nil); nil when none of them is on the order. `reprint` heads it REPRINT: it
    /// may be on paper already.
    public init?(
        cart: Cart, event: OutboxEvent, at: Timestamp, reason: String?, columns: Int, kinds: Set<String>?,
        showCustomer: Bool = true, reprint: Bool, timeZone: TimeZone = .current
    ) {
        let items = cart.items.filter { kinds?.contains($0.pizza.kind) ?? true }
        // A product prints where its id or its category is named.
        let products = cart.products.filter { line in
            kinds.map { $0.contains(line.product.product) || $0.contains(line.product.category) } ?? true
        }
        guard !items.isEmpty || !products.isEmpty || (kinds == nil && event != .placed) else { return nil }
        var lines: [Line] = []
        // Each line is wrapped as it prints (a transliteration may be wider than its letter), so that none is wider
        // than the printer; a long field keeps its first lines and says it was cut.
        func add(_ text: String, _ style: Style = .normal, indent: Int = 0, atMost: Int = Self.linesPerField) {
            let width = (style == .large ? columns / 2 : columns) - indent
            var pieces = Self.wrap(EscPos.printable(text), width: width)
            if pieces.count > atMost {
                pieces = Array(pieces.prefix(atMost))
                pieces[atMost - 1] = String(pieces[atMost - 1].prefix(width - 3)) + "..."
            }
            for piece in pieces {
                lines.append(Line(text: String(repeating: " ", count: indent) + piece, style: style))
            }
        }
        if reprint { add("REPRINT", .large) }
        if event == .cancelled { add("CANCELLED", .large) }
        add("#\(cart.id)", .large)
        if event != .placed && event != .cancelled { add(event.rawValue.uppercased(), .bold) }
        add(Self.time(at, timeZone: timeZone))
        if let ref = cart.ref { add("Ref \(ref)") }
        if showCustomer, let customer = cart.customer, !customer.isEmpty { add(customer, .bold, atMost: 3) }
        let fulfilment = cart.fulfilment
        switch fulfilment.type {
        case .pickup: if fulfilment.dueAt != nil { add("PICKUP", .bold) }
        case .delivery: add("DELIVERY", .bold)
        case .dinein: add("TABLE \(fulfilment.table ?? "?")", .bold)
        }
        if let due = fulfilment.dueAt { add("Due \(Self.time(due, timeZone: timeZone))", .bold) }
        if fulfilment.type == .delivery, let address = fulfilment.address {
            add(address.street, atMost: 2)
            add("\(address.postcode) \(address.city)", atMost: 2)
            if let notes = address.notes { add(notes, atMost: 3) }
            if let phone = fulfilment.phone { add("Tel. \(phone)") }
        }
        add(String(repeating: "-", count: columns))
        for item in items {
            let pizza = item.pizza
            add("\(pizza.quantity) x \(pizza.kind) \(pizza.size.rawValue)", .bold)
            add(pizza.details.joined(separator: ", "), indent: 4, atMost: 2)
            if let note = pizza.note { add("! \(note)", indent: 4, atMost: 3) }
        }
        for line in products {
            add("\(line.product.quantity) x \(line.product.name)", .bold)
            if !line.product.options.isEmpty {
                add(line.product.options.map { "+" + $0 }.joined(separator: ", "), indent: 4, atMost: 2)
            }
            if let note = line.product.note { add("! \(note)", indent: 4, atMost: 3) }
        }
        if let note = cart.note, !note.isEmpty {
            add(String(repeating: "-", count: columns))
            add("Note: \(note)", .bold, atMost: 8)
        }
        if event == .cancelled {
            add(String(repeating: "-", count: columns))
            add("Reason: \(reason ?? "none given")", atMost: 4)
        }
        if lines.count > Self.maximumLines {
            // The longest order (100 items) stays under a metre of paper; the rest is on the screen.
            let cut = lines.count - Self.maximumLines + 1
            lines = Array(lines.prefix(Self.maximumLines - 1))
            lines.append(
                Line(
                    text: String("... \(cut) more lines: pizzactl order show \(cart.id)".prefix(columns)), style: .bold)
            )
        }
        self.lines = lines
    }

    /// The most lines a field takes unless told otherwise.
    static let linesPerField = 4
    /// The most lines a ticket has: under 95 cm at the 3.75 mm of a line of font A, its few large lines included.
    public static let maximumLines = 240

    /// The ticket as plain text, as the printer prints it (a letter its code page lacks as its transliteration),
    /// large lines marked as such: what `--preview` shows.
    public var text: String {
        lines.map { line in
            let printed = EscPos.printable(line.text)
            return switch line.style {
            case .large: "== \(printed) =="
            case .bold, .normal: printed
            }
        }.joined(separator: "\n") + "\n"
    }

    /// `26.11.2026 19:04` in the shop's time zone.
    static func time(_ at: Timestamp, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let date = Date(timeIntervalSince1970: Double(at.millisecondsSince1970) / 1000)
        let parts = calendar.dateComponents([.day, .month, .year, .hour, .minute], from: date)
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "??" }
        return "\(two(parts.day)).\(two(parts.month)).\(parts.year ?? 0) \(two(parts.hour)):\(two(parts.minute))"
    }

    /// `text` in lines of at most `width` characters, broken at spaces where it can be; control characters become
    /// spaces (a printer takes them as commands).
    static func wrap(_ text: String, width: Int) -> [String] {
        let clean = String(
            text.map { $0.isNewline || ($0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } ?? false) ? " " : $0 })
        var lines: [String] = []
        var current = ""
        for word in clean.split(separator: " ", omittingEmptySubsequences: false) {
            var word = String(word)
            while word.count > width {
                if !current.isEmpty {
                    lines.append(current)
                    current = ""
                }
                lines.append(String(word.prefix(width)))
                word = String(word.dropFirst(width))
            }
            if current.isEmpty {
                current = word
            } else if current.count + 1 + word.count <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = word
            }
        }
        lines.append(current)
        return lines
    }
}

import ArgumentParser
import Dispatch
import FoundationEssentials
import PizzaCore
import PizzaProtocol
import PizzaWire

// A shop's whole order from the command line (CONTRACT section 17): products beside pizzas in one item syntax,
// fulfilment, discounts, payments and refunds.

extension GlobalOptions {
    /// The menu's product ids, asked of the daemon only when an item's name might be one (no size and no pizza
    /// options), so that a pizza-only command costs no extra call.
    func productIDs(for texts: [String]) async throws -> Set<String> {
        let pizzaOnly = texts.allSatisfy { text in
            text.split(separator: ",").first?.contains(":") == true
        }
        if pizzaOnly || texts.isEmpty { return [] }
        let menu = try await withDaemon { try await $0.call(RPCMethod.menu.rawValue, []) }
        return Set(try MenuAnswer(json: menu).products.map(\.id))
    }

    /// The items as the daemon reads them.
    func items(_ texts: [String]) async throws -> [JSONValue] {
        let products = try await productIDs(for: texts)
        return try texts.map { try item($0, products: products) }
    }
}

/// Parses an ITEM with the reason shown when it does not read. Without `products` (checking the arguments before
/// the menu is known), it reads if it reads as either a pizza or a product.
func item(_ text: String, products: Set<String>? = nil) throws -> JSONValue {
    do {
        guard let products else {
            let head = String(text.prefix { $0 != "," && $0 != ":" })
            if let product = try? PizzaShorthand.parse(text, products: [head]) { return product }
            return try PizzaShorthand.parse(text)
        }
        return try PizzaShorthand.parse(text, products: products)
    } catch {
        throw ValidationError(error.description)
    }
}

/// An amount the operator types in the currency's units (`12.50`, `12`) as cents; refused past two decimals.
func cents(_ text: String, option: String) throws -> Int64 {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count <= 2, let whole = Int64(parts[0]), whole >= 0, !parts[0].isEmpty,
        parts.count == 1 || (1...2).contains(parts[1].count) && parts[1].allSatisfy(\.isNumber)
    else { throw ValidationError("\(option) must be an amount such as 12.50 (at most two decimals), not '\(text)'") }
    let fraction = parts.count == 2 ? (Int64(parts[1]) ?? 0) * (parts[1].count == 1 ? 10 : 1) : 0
    let (scaled, overflow) = whole.multipliedReportingOverflow(by: 100)
    guard !overflow, scaled <= Money.maximumAmount else { throw ValidationError("\(option) '\(text)' is too large") }
    return scaled + fraction
}

/// `text` without spaces at either end.
private func trimmed(_ text: Substring) -> String {
    String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
}

/// The fulfilment options `order new` and `order fulfilment` share.
struct FulfilmentOptions: ParsableArguments {
    @Flag(help: "Deliver it (needs --phone and --address).") var delivery = false
    @Option(help: "Serve it at this table (dine-in).") var table: String?
    @Option(help: "The customer's phone (a delivery needs it).") var phone: String?
    @Option(help: "Where to deliver: 'STREET, POSTCODE CITY' (e.g. 'Hauptstr. 5, 10115 Berlin').") var address: String?
    @Option(help: "For the driver: '2nd floor, ring twice'.") var addressNotes: String?
    @Option(help: "When the customer wants it: HH:MM today (local time) or ISO-8601 UTC.") var due: String?

    var given: Bool { delivery || table != nil || phone != nil || address != nil || due != nil }

    func validate() throws {
        if delivery, table != nil { throw ValidationError("--delivery and --table exclude each other") }
        if let address { _ = try Self.address(address, notes: addressNotes) }
        if let due { _ = try Self.dueAt(due) }
    }

    /// The fulfilment as the daemon reads it.
    var json: JSONValue {
        get throws {
            var members: [(String, JSONValue)] = [
                ("type", .string(delivery ? "delivery" : table != nil ? "dinein" : "pickup"))
            ]
            if let phone { members.append(("phone", .string(phone))) }
            if let address { members.append(("address", try Self.address(address, notes: addressNotes))) }
            if let table { members.append(("table", .string(table))) }
            if let due { members.append(("dueAt", .string(try Self.dueAt(due)))) }
            return .object(members)
        }
    }

    static func address(_ text: String, notes: String?) throws -> JSONValue {
        guard let comma = text.lastIndex(of: ",") else {
            throw ValidationError("--address must be 'STREET, POSTCODE CITY', not '\(text)'")
        }
        let street = trimmed(text[..<comma])
        let rest = trimmed(text[text.index(after: comma)...])
        guard let space = rest.firstIndex(of: " "), !street.isEmpty else {
            throw ValidationError("--address must be 'STREET, POSTCODE CITY', not '\(text)'")
        }
        var members: [(String, JSONValue)] = [
            ("street", .string(street)), ("postcode", .string(String(rest[..<space]))),
            ("city", .string(trimmed(rest[rest.index(after: space)...]))),
        ]
        if let notes { members.append(("notes", .string(notes))) }
        return .object(members)
    }

    static func dueAt(_ text: String) throws -> String {
        if Timestamp(iso8601: text) != nil { return text }
        let parts = text.split(separator: ":")
        guard parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour),
            (0..<60).contains(minute)
        else { throw ValidationError("--due must be HH:MM (today, local time) or ISO-8601 UTC, not '\(text)'") }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        var day = calendar.dateComponents([.year, .month, .day], from: Date())
        day.hour = hour
        day.minute = minute
        guard let date = calendar.date(from: day) else { throw ValidationError("--due '\(text)' is not a time") }
        return Timestamp(millisecondsSince1970: Int64(date.timeIntervalSince1970 * 1000)).description
    }
}

extension OrderCommand {
    struct Fulfil: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "fulfilment",
            abstract: "Change how an order reaches its customer (pickup, delivery, table) and when, before it ships.",
            discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl
        @Argument(help: "The order id.") var id: Int64
        @OptionGroup var fulfilment: FulfilmentOptions

        func run() async throws {
            try await global.call(
                OrderOperation.setFulfilment, [("id", .int(id)), ("fulfilment", try fulfilment.json)],
                render: Output.order)
        }
    }

    struct Discount: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "discount", abstract: "Give a discount on an order or one of its items, before it ships.",
            discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl
        @Argument(help: "The order id.") var id: Int64
        @Option(help: "An amount off, in the currency (e.g. 2.50).") var amount: String?
        @Option(help: "A whole percent off (1 to 100).") var percent: Int?
        @Option(help: "Only this item (see 'order show'); default: the whole order.") var item: Int64?
        @Option(help: "Why (required).") var reason: String

        func validate() throws {
            guard (amount == nil) != (percent == nil) else { throw ValidationError("give --amount or --percent") }
            if let amount { _ = try cents(amount, option: "--amount") }
            if let percent, !(1...100).contains(percent) { throw ValidationError("--percent must be from 1 to 100") }
        }

        func run() async throws {
            var params: [(String, JSONValue)] = [("id", .int(id)), ("reason", .string(reason))]
            if let amount { params.append(("amount", .int(try cents(amount, option: "--amount")))) }
            if let percent { params.append(("percent", .int(Int64(percent)))) }
            if let item { params.append(("item", .int(item))) }
            try await global.call(OrderOperation.discount, params, render: Output.order)
        }
    }

    struct Pay: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "pay", abstract: "Record a payment: TENDER is cash, card, online, platform or voucher.",
            discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl
        @Argument(help: "The order id.") var id: Int64
        @Argument(help: "cash, card, online, platform or voucher.") var tender: String
        @Argument(help: "The amount, in the currency (e.g. 23.50).") var amount: String
        @Option(help: "The terminal's or platform's reference; the same ref again is the same payment.") var ref:
            String?

        func validate() throws {
            guard Tender(rawValue: tender) != nil else {
                throw ValidationError(
                    "TENDER must be one of: \(Tender.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            _ = try cents(amount, option: "AMOUNT")
        }

        func run() async throws {
            var params: [(String, JSONValue)] = [
                ("id", .int(id)), ("tender", .string(tender)), ("amount", .int(try cents(amount, option: "AMOUNT"))),
            ]
            if let ref { params.append(("ref", .string(ref))) }
            try await global.call(OrderOperation.pay, params, render: Output.order)
        }
    }

    struct Refund: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "refund", abstract: "Refund part or all of a payment (see 'order show' for its id).",
            discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl
        @Argument(help: "The order id.") var id: Int64
        @Argument(help: "The payment's id.") var payment: Int64
        @Argument(help: "The amount, in the currency (e.g. 5.00).") var amount: String
        @Option(help: "Why (required).") var reason: String

        func validate() throws { _ = try cents(amount, option: "AMOUNT") }

        func run() async throws {
            try await global.call(
                OrderOperation.refund,
                [
                    ("id", .int(id)), ("payment", .int(payment)), ("amount", .int(try cents(amount, option: "AMOUNT"))),
                    ("reason", .string(reason)),
                ], render: Output.order)
        }
    }
}

/// Shell completion of an item: the menu's kinds and products, asked of the daemon at the default socket (nothing
/// when it cannot be reached within a second, so that a shell never waits on it).
enum ItemCompletion {
    static let kind = CompletionKind.custom { words, _, prefix in
        let typed = prefix
        // The socket the command line names, if it does.
        let socket = words.firstIndex(of: "--socket").flatMap { words.indices.contains($0 + 1) ? words[$0 + 1] : nil }
        return names(socket: socket).filter { $0.hasPrefix(typed) }
    }

    static func names(socket: String?) -> [String] {
        let found = Locked<[String]>([])
        let done = DispatchSemaphore(value: 0)
        Task {
            defer { done.signal() }
            guard
                let options = try? GlobalOptions.parse(["--timeout", "1"] + (socket.map { ["--socket", $0] } ?? [])),
                let menu = try? await options.withDaemon({ try await $0.call(RPCMethod.menu.rawValue, []) }),
                let answer = try? MenuAnswer(json: menu)
            else { return }
            found.withLock { $0 = answer.kinds.map(\.name) + answer.products.map(\.id) }
        }
        _ = done.wait(timeout: .now() + 1.5)
        return found.withLock { $0 }
    }
}

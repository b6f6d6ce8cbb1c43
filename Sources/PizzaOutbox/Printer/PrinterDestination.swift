import Foundation
import PizzaCore
import PizzaStorage
import PizzaWire

/// A kitchen printer as the outbox sends to it: a ticket for each order placed (a cancellation for one cancelled),
/// listing the pizzas of its kinds; its status asked while nothing waits, so the board and the metrics show a
/// printer out of paper before the next order.
final class PrinterDestination: Destination {
    let settings: PrinterSettings
    let showCustomer: Bool
    let failureLimit: Duration?
    private let connection: PrinterConnection
    private let currentStatus = Locked<EscPos.Status?>(nil)

    init(settings: PrinterSettings, showCustomer: Bool, limit: Duration) {
        self.settings = settings
        self.showCustomer = showCustomer
        self.failureLimit = limit
        connection = PrinterConnection(host: settings.host, port: settings.port)
    }

    var name: String { settings.name }
    var kind: DestinationKind { .printer }
    var events: Set<OutboxEvent> { settings.reports ? settings.events.union([.zReport]) : settings.events }
    var marksAttempts: Bool { true }
    var idleInterval: Duration { .seconds(10) }
    /// The printer's status as last seen; nil before it was asked.
    var status: EscPos.Status? { currentStatus.value }

    func wants(_ entry: AuditEntry) -> Bool {
        if entry.orderID == nil { return settings.reports && entry.action == ShopChange.Kind.zReport.rawValue }
        guard !OutboxEvent.events(of: entry).isDisjoint(with: settings.events) else { return false }
        guard let kinds = settings.kinds else { return true }
        guard let cart = try? Self.cart(entry) else { return true }
        return cart.items.contains { kinds.contains($0.pizza.kind) }
            || cart.products.contains { kinds.contains($0.product.product) || kinds.contains($0.product.category) }
    }

    /// The ticket `entry` prints, or nil when it has none for this printer.
    func ticket(for entry: AuditEntry, reprint: Bool) throws -> KitchenTicket? {
        if entry.orderID == nil {
            guard settings.reports, entry.action == ShopChange.Kind.zReport.rawValue else { return nil }
            let report = try JSONValueDecoder().decode(ZReport.self, from: try JSONParser.parse(entry.after))
            return KitchenTicket(report: report, title: "Z REPORT", columns: settings.columns, reprint: reprint)
        }
        // The ticket is for the status the order entered: a kitchen ticket for placed, a cancellation, or a slip
        // headed with the status for a printer that prints others too.
        let events = OutboxEvent.events(of: entry).intersection(settings.events)
        guard let event = events.subtracting([.created]).first ?? events.first else { return nil }
        let at = Timestamp(iso8601: entry.at) ?? .now()
        return KitchenTicket(
            cart: try Self.cart(entry), event: event, at: at, reason: entry.reason, columns: settings.columns,
            kinds: settings.kinds, showCustomer: showCustomer, reprint: reprint)
    }

    /// The ticket for `cart` as it is now, printed again on demand (`pizzactl order print`).
    func ticket(for cart: Cart, reprint: Bool) -> KitchenTicket? {
        let event: OutboxEvent = cart.status == .cancelled ? .cancelled : .placed
        return KitchenTicket(
            cart: cart, event: event, at: cart.history.last?.at ?? cart.updatedAt,
            reason: cart.history.last(where: { $0.to == .cancelled })?.reason, columns: settings.columns,
            kinds: settings.kinds, showCustomer: showCustomer, reprint: reprint)
    }

    func deliver(_ entry: AuditEntry, again: Bool) async -> DeliveryOutcome {
        let ticket: KitchenTicket?
        do {
            ticket = try self.ticket(for: entry, reprint: again)
        } catch {
            // An entry this daemon cannot read is no ticket; waiting would hold every ticket behind it.
            return .delivered
        }
        guard let ticket else { return .delivered }
        return await print(ticket)
    }

    /// Prints `ticket` now.
    func print(_ ticket: KitchenTicket) async -> DeliveryOutcome {
        do throws(PrinterConnection.Failure) {
            let status = try await connection.print(EscPos.bytes(of: ticket))
            currentStatus.withLock { $0 = status }
            return .delivered
        } catch {
            switch error {
            case .unreachable:
                currentStatus.withLock { $0 = .unreachable }
                return .failed(error.description)
            case .notReady(let status):
                currentStatus.withLock { $0 = status }
                return .failed(error.description)
            case .outcomeUnknown:
                // Paper out, or the cover opened, half-way: say so on the board at once.
                let status = await connection.status()
                currentStatus.withLock { $0 = status }
                return .unknown(error.description)
            }
        }
    }

    func delay(afterFailures failures: Int, outcome: DeliveryOutcome) -> Duration? { .seconds(2) }

    func idle() async {
        let status = await connection.status()
        currentStatus.withLock { $0 = status }
    }

    static func cart(_ entry: AuditEntry) throws -> Cart { try Cart(wire: try JSONParser.parse(entry.after)) }
}

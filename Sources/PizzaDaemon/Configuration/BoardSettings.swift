public import PizzaCore
public import PizzaProtocol
import PizzaWire

/// How the kitchen's boards (the page and `pizzactl board`) show tickets.
public struct BoardSettings: Sendable, Equatable {
    /// Where the board's page listens (`board.listen`); nil: only on a socket systemd passes.
    public var listen: ListenAddress? = nil
    /// Whether tickets show the customer's name (`board.showCustomer`).
    public var showCustomer = true
    /// Seconds in a status after which a ticket is yellow (warn) and red (late), for the board's statuses.
    public var thresholds: [OrderStatus: (warn: Int, late: Int)] = Dictionary(
        uniqueKeysWithValues: ConfigurationSchema.boardThresholdDefaults.map {
            (OrderStatus(rawValue: $0.status)!, (warn: $0.warn, late: $0.late))
        })

    /// The defaults.
    public init() {}

    public static func == (lhs: BoardSettings, rhs: BoardSettings) -> Bool {
        lhs.listen == rhs.listen && lhs.showCustomer == rhs.showCustomer
            && lhs.thresholds.mapValues { [$0.warn, $0.late] } == rhs.thresholds.mapValues { [$0.warn, $0.late] }
    }

    /// What the boards show: the customer or not, and the marks per status on the board.
    public var view: BoardView {
        BoardView(
            showCustomer: showCustomer,
            thresholds: Members(
                ConfigurationSchema.boardThresholdDefaults.compactMap { entry in
                    guard let status = OrderStatus(rawValue: entry.status), let marks = thresholds[status] else {
                        return nil
                    }
                    return (entry.status, BoardView.Marks(warn: marks.warn, late: marks.late))
                }))
    }

    /// ``view`` as JSON text, for the page.
    public var json: String { (try? view.json.jsonText) ?? "{}" }
}

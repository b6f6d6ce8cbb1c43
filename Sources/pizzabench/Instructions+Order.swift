import ArgumentParser
import PizzaTesting

extension Instructions {
    /// The order each client makes: the two-pizza order, or a shop's whole order (CONTRACT 17, ``RealisticOrder``),
    /// alone or then paid (an operation being the two); the socket bound makes the same.
    enum Order: String, CaseIterable, ExpressibleByArgument {
        case twoPizzas = "two-pizzas"
        case realistic
        case paid

        /// pizzad's configuration for it (the whole order's menu), or nil for the built-in one.
        var config: String? { self == .twoPizzas ? nil : RealisticOrder.menu }

        /// The socket bound's same order.
        var bound: SocketWork.Order {
            switch self {
            case .twoPizzas: .twoPizzas
            case .realistic: .realistic
            case .paid: .paid
            }
        }

        /// What it is, for the report's first line.
        var described: String {
            switch self {
            case .twoPizzas: "two pizzas, placed"
            case .realistic: "two pizzas, two colas, a garlic bread with a dip, delivered, placed"
            case .paid: "the realistic order made, then paid (order.pay): an operation is the two"
            }
        }

        /// The load of `clients` clients for `seconds`.
        func load(_ daemon: PizzadProcess, clients: Int, seconds: Double) throws -> LoadResult {
            switch self {
            case .twoPizzas: try Load.create(daemon: daemon, clients: clients, seconds: seconds)
            case .realistic:
                try Load.create(daemon: daemon, clients: clients, seconds: seconds, order: RealisticOrder.params)
            case .paid:
                try Load.create(
                    daemon: daemon, clients: clients, seconds: seconds, order: RealisticOrder.params, pay: true)
            }
        }
    }
}

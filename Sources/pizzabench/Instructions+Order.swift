import ArgumentParser
import PizzaTesting

extension Instructions {
    /// The order each client makes (the socket bound makes the same): ``SocketWork/Order``.
    typealias Order = SocketWork.Order
}

/// The order each client makes: the two-pizza order, or a shop's whole order (CONTRACT 17, ``RealisticOrder``),
/// alone or then paid (an operation being the two).
extension SocketWork.Order: ExpressibleByArgument {
    /// pizzad's configuration for it (the whole order's menu), or nil for the built-in one.
    var config: String? { self == .twoPizzas ? nil : RealisticOrder.menu }

    /// What it is, for the report's first line.
    var described: String {
        switch self {
        case .twoPizzas: "two pizzas, placed"
        case .realistic: "two pizzas, two colas, a garlic bread with a dip, delivered, placed"
        case .paid: "the realistic order made, then paid (order.pay): an operation is the two"
        }
    }

    /// pizzabench's load of `clients` clients for `seconds` on pizzad.
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

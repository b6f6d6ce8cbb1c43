import Foundation

/// The socket bound: `SocketWork/socketwork.c`, samework.c's rows behind pizzad's architecture in plain C (clients
/// on Unix sockets, two epoll loops, one writer with group commit, answers handed back with one wake-up per loop),
/// parsing nothing but the request id. What a daemon of this shape does on this machine with no cost of its own
/// beyond the rows: where the ceiling has no socket and no clients, this has both, as pizzad does. Like pizzad and
/// unlike the ceiling, it takes no savepoint per order.
struct SocketWork {
    /// Orders per second and the server process's CPU per order (the clients are a child process, not counted).
    typealias Result = SameWork.Result

    let binary: String
    let migrations: String
    let directory: String

    /// Builds socketwork.c (beside this file) into `directory`; needs gcc, libsqlite3-dev and libssl-dev.
    init(migrations: String, directory: String) throws {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("SocketWork/socketwork.c").path
        binary = directory + "/socketwork"
        self.migrations = migrations
        self.directory = directory
        try Bench.buildC(source, into: binary, flags: ["-pthread"])
    }

    /// What each order writes: the two-pizza order of `create` and `counts`, or a shop's whole order (CONTRACT 17)
    /// as `whole-order` measures it: made (`realistic`), or made and then paid in a second request (`paid`).
    enum Order: String, CaseIterable {
        case twoPizzas = "two-pizzas"
        case realistic
        case paid
    }

    /// `clients` clients creating orders for `seconds`.
    func run(clients: Int, seconds: Double, order: Order = .twoPizzas) throws -> Result {
        // It prints orders/s, CPU µs per order, p99 µs and changes per commit; the last two are for a run by hand.
        let fields = try Bench.numbers(
            binary,
            [directory + "/socketwork.db", migrations, String(clients), Bench.format(seconds, 1), order.rawValue],
            count: 2)
        return Result(perSecond: fields[0], cpuMicrosPerOrder: fields[1])
    }
}

import ArgumentParser
import FoundationEssentials
import Glibc
import PizzaCore
import PizzaProtocol
import PizzaWire

struct Watch: AsyncParsableCommand, PizzactlCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Follow changes live: the kitchen view. Ctrl-C stops.",
        discussion: GlobalOptions.help)

    @ParentCommand var pizzactl: Pizzactl
    @Option(help: "Only orders entering or leaving this status.") var status: String?
    @Option(help: "Resume after this event sequence number.") var after: Int64?

    func validate() throws { try checkStatus(status, option: "--status") }

    func run() async throws {
        var params: [(String, JSONValue)] = []
        if let status { params.append(("status", .string(status))) }
        if let after { params.append(("after", .int(after))) }
        try await global.withDaemon { client in
            _ = try await client.call(.watch, params)
            if !global.json { print("Watching\(status.map { " \($0)" } ?? "") orders; Ctrl-C stops.") }
            Output.flush()
            while let message = try await client.nextNotification() {
                let notification = try WatchNotification(message: message)
                if global.json {
                    // The notification's params, as the daemon sent them (read as their type, written again).
                    switch notification {
                    case .event(let event): print(try event.json.jsonText)
                    case .shop(let event): print(try event.json.jsonText)
                    case .dropped(let dropped): print(try dropped.json.jsonText)
                    }
                    Output.flush()
                    continue
                }
                switch notification {
                case .dropped(let dropped): print("The daemon dropped this watcher: \(Output.safe(dropped.reason))")
                case .shop(let event):
                    if let item = event.item {
                        print(
                            "\(Output.time(event.at))  #\(event.seq)  \(Output.safe(item.name)) "
                                + (item.available ? "back on the menu" : "taken off the menu (86)"))
                    } else if let report = event.report {
                        print(
                            "\(Output.time(event.at))  #\(event.seq)  Z report \(report.number) closed the day: "
                                + "\(report.placed.count) placed, gross \(Output.money(report.gross, nil))")
                    }
                case .event(let event):
                    let order = event.order
                    let count = order.pizzaCount
                    print(
                        "\(Output.time(event.at))  #\(event.seq)  order \(order.id) \(event.kind) → \(Output.status(order.status))  "
                            + "\(order.customer.map(Output.safe) ?? "-"), \(count) pizza\(count == 1 ? "" : "s"), "
                            + Output.money(order.total, order.currency) + Output.whatChanged(event.kind, order))
                }
                Output.flush()
            }
        }
    }
}

import ArgumentParser
import FoundationEssentials
import Glibc
import PizzaCore
import PizzaProtocol
import PizzaWire

struct OrderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "order", abstract: "Create, change and look at orders.",
        subcommands: [
            New.self, Add.self, Remove.self, Place.self, Advance.self, Cancel.self, Show.self, List.self, Print.self,
            Fulfil.self, Discount.self, Pay.self, Refund.self,
        ])
}

private let statuses = OrderStatus.allCases.map(\.rawValue)

func checkStatus(_ status: String?, option: String) throws {
    if let status, !statuses.contains(status) {
        throw ValidationError("\(option) must be one of: \(statuses.joined(separator: ", "))")
    }
}

extension OrderCommand {
    struct New: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "new",
            abstract: "Create an order, optionally with items (pizzas and products), optionally placed.",
            discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl
        @Option(help: "Who the order is for.") var customer: String?
        @Option(help: "Your own reference; creating again with it returns the same order.") var ref: String?
        @Option(help: "A note for the kitchen.") var note: String?
        @Flag(help: "Place the order at once.") var place = false
        @OptionGroup var fulfilment: FulfilmentOptions
        @Argument(
            help: ArgumentHelp("Items: \(PizzaShorthand.form)", valueName: "item"), completion: ItemCompletion.kind)
        var pizzas: [String] = []

        func validate() throws { for text in pizzas { _ = try item(text) } }

        func run() async throws {
            var params: [(String, JSONValue)] = []
            if let customer { params.append(("customer", .string(customer))) }
            if let ref { params.append(("ref", .string(ref))) }
            if let note { params.append(("note", .string(note))) }
            if !pizzas.isEmpty { params.append(("items", .array(try await global.items(pizzas)))) }
            if fulfilment.given { params.append(("fulfilment", try fulfilment.json)) }
            if place { params.append(("place", true)) }
            try await global.call(OrderOperation.create, params, render: Output.order)
        }
    }

    struct Add: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add an item (a pizza or a product) to an open order.",
            discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl
        @Argument(help: "The order id.") var id: Int64
        @Argument(
            help: ArgumentHelp("The item: \(PizzaShorthand.form)", valueName: "item"), completion: ItemCompletion.kind)
        var pizzaText: String

        func validate() throws { _ = try item(pizzaText) }

        func run() async throws {
            let item = try await global.items([pizzaText])[0]
            try await global.call(
                OrderOperation.addItem, [("id", .int(id)), ("item", item)], render: Output.order)
        }
    }

    struct Remove: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove an item from an open order.", discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl
        @Argument(help: "The order id.") var id: Int64
        @Argument(help: "The item id (see 'order show').") var item: Int64

        func run() async throws {
            try await global.call(
                OrderOperation.removeItem, [("id", .int(id)), ("item", .int(item))], render: Output.order)
        }
    }

    struct Place: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "place", abstract: "Place an open order that has pizzas.", discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl
        @Argument(help: "The order id.") var id: Int64

        func run() async throws {
            try await global.call(OrderOperation.place, [("id", .int(id))], render: Output.order)
        }
    }

    struct Advance: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "advance", abstract: "Move an order one step forward.", discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl
        @Argument(help: "The order id.") var id: Int64
        @Option(help: "Only if the order is in this status (refused with 'conflict' otherwise).") var from: String?

        func validate() throws { try checkStatus(from, option: "--from") }

        func run() async throws {
            var params: [(String, JSONValue)] = [("id", .int(id))]
            if let from { params.append(("from", .string(from))) }
            try await global.call(OrderOperation.advance, params, render: Output.order)
        }
    }

    struct Cancel: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "cancel", abstract: "Cancel an order that has not shipped.", discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl
        @Argument(help: "The order id.") var id: Int64
        @Option(help: "Why (required).") var reason: String

        func run() async throws {
            try await global.call(
                OrderOperation.cancel, [("id", .int(id)), ("reason", .string(reason))], render: Output.order)
        }
    }

    struct Show: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show an order with its items and history.", discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl
        @Argument(help: "The order id.") var id: Int64?
        @Option(help: "Find the order by your reference instead.") var ref: String?

        func validate() throws {
            guard (id == nil) != (ref == nil) else {
                throw ValidationError("give an order id or --ref, not both or neither")
            }
        }

        func run() async throws {
            let params: [(String, JSONValue)] = id.map { [("id", .int($0))] } ?? [("ref", .string(ref!))]
            try await global.call(OrderOperation.get, params, render: Output.order)
        }
    }

    struct Print: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "print",
            abstract: "Print an order's kitchen ticket again (it says REPRINT), or show it as text.",
            discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl
        @Argument(help: "The order id.") var id: Int64
        @Option(help: "Only on this printer (default: every printer whose kinds are on the order).")
        var printer: String?
        @Flag(help: "Show the ticket as the printer would print it, and print nothing.") var preview = false

        func run() async throws {
            var params: [(String, JSONValue)] = [("id", .int(id)), ("preview", .bool(preview))]
            if let printer { params.append(("printer", .string(printer))) }
            var failed: [String] = []
            try await global.call(.orderPrint, params, as: PrintAnswer.self) { result in
                for ticket in result.tickets {
                    let name = ticket.printer
                    switch ticket.outcome {
                    case .skipped(let why): print("\(name): no ticket (\(why))")
                    case .preview(let text):
                        print("--- \(name) ---")
                        print(text, terminator: "")
                    case .printed(error: nil): print("\(name): printed")
                    case .printed(let error?): failed.append("\(name): \(error)")
                    }
                }
            }
            if !failed.isEmpty { throw CommandFailure(message: "not printed: " + failed.joined(separator: "; ")) }
        }
    }

    struct List: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List orders, newest first.", discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl
        @Option(help: "Only orders in this status.") var status: String?
        @Option(help: "Only orders created since this time (YYYY-MM-DD or ISO-8601 UTC).") var since: String?
        @Option(help: "At most this many (1 to 1000).") var limit: Int = 50
        @Option(help: "Continue after this order id (the 'next' of the previous page).") var after: Int64?
        @Option(help: "Only orders of this type: pickup, delivery or dinein.") var type: String?
        @Option(help: "newest (the default) or due: by when each is wanted, soonest first.") var sort: String?

        func validate() throws {
            try checkStatus(status, option: "--status")
            if let type, Fulfilment.Kind(rawValue: type) == nil {
                throw ValidationError("--type must be one of: pickup, delivery, dinein")
            }
            if let sort, OrderQuery.Sort(rawValue: sort) == nil {
                throw ValidationError("--sort must be newest or due")
            }
            guard (1...1000).contains(limit) else { throw ValidationError("--limit must be from 1 to 1000") }
        }

        func run() async throws {
            var params: [(String, JSONValue)] = [("limit", .int(Int64(limit)))]
            if let status { params.append(("status", .string(status))) }
            if let since { params.append(("since", .string(since))) }
            if let after { params.append(("after", .int(after))) }
            if let type { params.append(("type", .string(type))) }
            if let sort { params.append(("sort", .string(sort))) }
            try await global.call(OrderOperation.list, params, as: OrderListAnswer.self) { page in
                Output.table(
                    ["ID", "STATUS", "TYPE", "CUSTOMER", "PIZZAS", "TOTAL", "DUE", "CREATED"],
                    page.orders.map { order in
                        [
                            String(order.id), order.status.rawValue, order.fulfilment.type.rawValue,
                            order.customer.map(Output.safe) ?? "-", String(order.pizzaCount),
                            Output.money(order.total, order.currency), order.fulfilment.dueAt.map(Output.time) ?? "-",
                            Output.time(order.createdAt),
                        ]
                    }, right: [0, 4, 5])
                if let next = page.next {
                    let same = [
                        status.map { " --status \($0)" }, type.map { " --type \($0)" }, sort.map { " --sort \($0)" },
                    ]
                    print("More: pizzactl order list --after \(next)" + same.compactMap { $0 }.joined())
                }
            }
        }
    }
}

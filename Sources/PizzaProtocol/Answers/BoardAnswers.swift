public import PizzaCore
public import PizzaWire

/// How the kitchen's boards show tickets: whether they show the customer, and when a ticket turns yellow and red.
/// The daemon's page and `pizzactl board` read the same value.
public struct BoardView: Answer, Equatable {
    /// Seconds in a status after which a ticket warns and is late.
    public struct Marks: Codable, Sendable, Equatable {
        /// Yellow after.
        public var warn: Int
        /// Red after.
        public var late: Int

        /// Marks.
        public init(warn: Int, late: Int) {
            self.warn = warn
            self.late = late
        }

        /// `[warn, late]`.
        public init(from decoder: any Decoder) throws {
            var pair = try decoder.unkeyedContainer()
            warn = try pair.decode(Int.self)
            late = try pair.decode(Int.self)
        }

        /// `[warn, late]`.
        public func encode(to encoder: any Encoder) throws {
            var pair = encoder.unkeyedContainer()
            try pair.encode(warn)
            try pair.encode(late)
        }
    }

    /// Whether tickets show the customer's name.
    public var showCustomer: Bool
    /// The marks per status on the board, in the lifecycle's order.
    public var thresholds: Members<Marks>

    /// A view.
    public init(showCustomer: Bool, thresholds: Members<Marks>) {
        self.showCustomer = showCustomer
        self.thresholds = thresholds
    }

    /// The marks for `status`, if the board shows it.
    public func marks(_ status: OrderStatus) -> Marks? { thresholds[status.rawValue] }
}

/// A printer's state as the board shows it.
public struct BoardPrinter: Codable, Sendable, Equatable {
    /// Its name.
    public var name: String
    /// `online`, `paper_out`, … or `unknown` before it was asked.
    public var status: String

    /// A printer.
    public init(name: String, status: String) {
        self.name = name
        self.status = status
    }
}

/// `board.snapshot`: the orders on the board, the newest sequence number they reflect, the board's view.
public struct BoardSnapshotAnswer: Answer {
    /// Follow with `events.watch` after it.
    public var seq: Int64
    /// How to show tickets.
    public var board: BoardView
    /// The orders from placed to shipped.
    public var orders: [Cart]
    /// The daemon's clock (ISO-8601), for how long a ticket has waited.
    public var now: String
    /// The printers.
    public var printers: [BoardPrinter]
    /// The items taken off the menu for now ("86"), sorted.
    public var unavailable: [String]

    /// An answer.
    public init(
        seq: Int64, board: BoardView, orders: [Cart], now: String, printers: [BoardPrinter], unavailable: [String] = []
    ) {
        self.unavailable = unavailable
        self.seq = seq
        self.board = board
        self.orders = orders
        self.now = now
        self.printers = printers
    }
}

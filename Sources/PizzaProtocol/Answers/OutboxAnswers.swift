public import PizzaCore

/// `outbox.list`: every printer and webhook.
public struct OutboxListAnswer: Answer {
    /// Each, in the configuration's order.
    public var destinations: [OutboxDestinationAnswer]

    /// An answer.
    public init(destinations: [OutboxDestinationAnswer]) { self.destinations = destinations }
}

/// One printer or webhook: what it does, what waits, why.
public struct OutboxDestinationAnswer: Codable, Sendable, Equatable {
    /// Its configured name.
    public var name: String
    /// A printer or a webhook.
    public var kind: DestinationKind
    /// The printer's address or the webhook's URL.
    public var target: String
    /// `idle`, `sending`, `failing` or `disabled`.
    public var state: String
    /// The last audit entry it has dealt with.
    public var deliveredSeq: Int64
    /// Messages waiting.
    public var waiting: Int64
    /// When the oldest waiting message committed (ISO-8601).
    public var oldestWaitingAt: String?
    /// When the current run of failures began.
    public var failingSince: String?
    /// The last failure, in words.
    public var lastError: String?
    /// When the waiting message is tried next.
    public var nextAttemptAt: String?
    /// When it was disabled.
    public var disabledAt: String?
    /// Why.
    public var disabledReason: String?
    /// A printer's status as last seen (`online`, `paper_out`, …); nil for a webhook.
    public var printer: String?
    /// Delivered since start.
    public var delivered: Int64
    /// Failed attempts since start.
    public var failed: Int64

    /// A destination's status.
    public init(
        name: String, kind: DestinationKind, target: String, state: String, deliveredSeq: Int64, waiting: Int64,
        oldestWaitingAt: String?, failingSince: String?, lastError: String?, nextAttemptAt: String?,
        disabledAt: String?, disabledReason: String?, printer: String?, delivered: Int64, failed: Int64
    ) {
        self.name = name
        self.kind = kind
        self.target = target
        self.state = state
        self.deliveredSeq = deliveredSeq
        self.waiting = waiting
        self.oldestWaitingAt = oldestWaitingAt
        self.failingSince = failingSince
        self.lastError = lastError
        self.nextAttemptAt = nextAttemptAt
        self.disabledAt = disabledAt
        self.disabledReason = disabledReason
        self.printer = printer
        self.delivered = delivered
        self.failed = failed
    }
}

/// `outbox.retry`: which destination now tries.
public struct OutboxRetryAnswer: Answer, Equatable {
    /// Its name.
    public var name: String
    /// Always true: it was found and tries now.
    public var retrying: Bool

    /// An answer.
    public init(name: String, retrying: Bool = true) {
        self.name = name
        self.retrying = retrying
    }
}

/// `order.print`: what each printer did with the order's ticket.
public struct PrintAnswer: Answer, Equatable {
    /// One printer's outcome.
    public struct Ticket: Codable, Sendable, Equatable {
        /// What happened.
        public enum Outcome: Sendable, Equatable {
            /// None of the printer's kinds is on the order.
            case skipped(String)
            /// `--preview`: the ticket's text.
            case preview(String)
            /// Sent: nil error when printed.
            case printed(error: String?)
        }

        /// The printer.
        public var printer: String
        /// What happened.
        public var outcome: Outcome

        /// A printer's outcome.
        public init(printer: String, _ outcome: Outcome) {
            self.printer = printer
            self.outcome = outcome
        }

        enum CodingKeys: String, CodingKey { case printer, skipped, text, printed, error }

        /// Reads the outcome from whichever of `skipped`, `text` or `printed` is there.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            printer = try container.decode(String.self, forKey: .printer)
            if let skipped = try container.decodeIfPresent(String.self, forKey: .skipped) {
                outcome = .skipped(skipped)
            } else if let text = try container.decodeIfPresent(String.self, forKey: .text) {
                outcome = .preview(text)
            } else {
                let printed = try container.decode(Bool.self, forKey: .printed)
                let error = try container.decodeIfPresent(String.self, forKey: .error)
                outcome = .printed(error: printed ? nil : error ?? "not printed")
            }
        }

        /// Writes `printer` and the outcome's own members.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(printer, forKey: .printer)
            switch outcome {
            case .skipped(let why): try container.encode(why, forKey: .skipped)
            case .preview(let text): try container.encode(text, forKey: .text)
            case .printed(let error):
                try container.encode(error == nil, forKey: .printed)
                try container.encodeIfPresent(error, forKey: .error)
            }
        }
    }

    /// The order.
    public var id: Int64
    /// Per printer.
    public var tickets: [Ticket]

    /// An answer.
    public init(id: Int64, tickets: [Ticket]) {
        self.id = id
        self.tickets = tickets
    }
}

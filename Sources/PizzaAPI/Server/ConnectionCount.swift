import NIOCore
import PizzaCore

extension APIServer {
    /// Counts the open connections (past the limit a connection is answered 503 and closed), in all and by address
    /// (past an address's share it is closed at once, so that one address cannot take every slot), and knows which
    /// have made a request: one that has not within its first deadline (a TLS handshake never finished, or nothing
    /// sent) is closed, and an address may hold only a few such at once.
    final class ConnectionCount: Sendable {
        /// Why a connection was not admitted.
        enum Refusal { case full, address }

        private struct Counts {
            var open = 0
            /// By address (``AuthenticationFailures/address(of:)``): open, and of those, not yet requested.
            var byAddress: [String: (open: Int, unanswered: Int)] = [:]
            /// The connections not yet requested, with their address; and each connection's address.
            var unanswered: Set<ObjectIdentifier> = []
            var address: [ObjectIdentifier: String] = [:]
        }

        let limit: Int
        let perAddress: Int
        let unansweredPerAddress: Int
        private let counts = Locked(Counts())

        init(limit: Int, perAddress: Int = .max, unansweredPerAddress: Int = .max) {
            self.limit = limit
            self.perAddress = perAddress
            self.unansweredPerAddress = unansweredPerAddress
        }

        /// The connections open now.
        var open: Int { counts.withLock { $0.open } }

        /// Admits `channel` from `host`, or says why not.
        func admit(_ channel: any Channel, host: String) -> Refusal? {
            let address = AuthenticationFailures.address(of: host)
            return counts.withLock { counts in
                guard counts.open < limit else { return .full }
                let mine = counts.byAddress[address] ?? (0, 0)
                guard mine.open < perAddress, mine.unanswered < unansweredPerAddress else { return .address }
                counts.open += 1
                counts.byAddress[address] = (mine.open + 1, mine.unanswered + 1)
                counts.unanswered.insert(ObjectIdentifier(channel))
                counts.address[ObjectIdentifier(channel)] = address
                return nil
            }
        }

        /// Marks the connection `channel` belongs to (itself, or an HTTP/2 stream's parent) as having made a request.
        /// A connection's own parent is the listening socket, which has none.
        func madeRequest(on channel: any Channel) {
            var connection = channel
            while let parent = connection.parent, parent.parent != nil { connection = parent }
            let id = ObjectIdentifier(connection)
            counts.withLock { counts in
                guard counts.unanswered.remove(id) != nil, let address = counts.address[id] else { return }
                counts.byAddress[address]?.unanswered -= 1
            }
        }

        func hasRequested(_ channel: any Channel) -> Bool {
            counts.withLock { !$0.unanswered.contains(ObjectIdentifier(channel)) }
        }

        /// Closes `channel` if it has made no request `after` it was admitted (a TLS handshake never finished, or
        /// nothing sent). The timer holds the connection weakly: it fires for every connection, and holding it kept a
        /// closed one (pipeline, TLS state and all) for the whole time: 30 MB more at the peak under 16 tills
        /// reconnecting for every order. Not cancelled at the close: a cancellation searches the loop's timers from
        /// end to end, which cost more than the firing.
        func closeIfSilent(_ channel: any Channel, after firstRequest: TimeAmount) {
            channel.eventLoop.scheduleTask(in: firstRequest) { [weak channel, self] in
                guard let channel, !self.hasRequested(channel) else { return }
                channel.close(promise: nil)
            }
        }

        func closed(_ channel: any Channel) {
            let id = ObjectIdentifier(channel)
            counts.withLock { counts in
                counts.open -= 1
                let wasUnanswered = counts.unanswered.remove(id) != nil
                guard let address = counts.address.removeValue(forKey: id), var mine = counts.byAddress[address]
                else { return }
                mine.open -= 1
                if wasUnanswered { mine.unanswered -= 1 }
                counts.byAddress[address] = mine.open > 0 ? mine : nil
            }
        }
    }
}

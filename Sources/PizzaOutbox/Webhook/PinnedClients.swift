import AsyncHTTPClient
import PizzaCore

/// The webhooks' HTTP clients, each connecting to the address ``PrivateAddresses/pin(url:allowPrivate:resolve:)``
/// checked for its host (AsyncHTTPClient's `dnsOverride`: the certificate is still checked for the host's name), so
/// the client never looks a name up itself, on an event loop or after the check. One client per host, kept while
/// the host's address stays the same (its connections are reused); a new address makes a new client, and the old
/// one is shut down once idle.
final class PinnedClients: Sendable {
    private let configuration: HTTPClient.Configuration
    private let clients = Locked<[String: (address: String, client: HTTPClient)]>([:])
    private let retired = Locked<[HTTPClient]>([])

    init(configuration: HTTPClient.Configuration) { self.configuration = configuration }

    /// The client that connects to `address` for `host`.
    func client(host: String, address: String) -> HTTPClient {
        clients.withLock { clients in
            if let current = clients[host], current.address == address { return current.client }
            var configuration = self.configuration
            if host != address { configuration.dnsOverride = [host: address] }
            let made = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            if let old = clients[host] { retired.withLock { $0.append(old.client) } }
            clients[host] = (address, made)
            return made
        }
    }

    /// Shuts every client down (the outbox stopping).
    func shutdown() async {
        let all = clients.withLock { $0.values.map(\.client) } + retired.withLock { $0 }
        for client in all { try? await client.shutdown() }
    }
}

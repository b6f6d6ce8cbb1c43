import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PizzaAPI
import PizzaCore
import PizzaStorage
import PizzaTesting
import PizzaWire
import SQLite

/// A real SQLite store in a temporary folder, the order API over it, and a token per role: the router runs in
/// process (HummingbirdTesting's `.router`), no socket.
final class APIFixture: Sendable {
    static let migrations: [Migration] = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return try! Migration.load(from: url.appendingPathComponent("migrations").path)
    }()

    let folder: TemporaryFolder
    let orders: OrderBook
    let api: OrderAPI
    /// A token for each role, by role.
    let tokens: [DeviceRole: String]
    /// The menu the API's factory reads, as a reload would change it.
    let menu = Locked(Menu.standard)
    /// The platform's signing secret (device `shop-online`, role platform, signs).
    let secret = "whsec_" + Data((0..<32).map { UInt8($0) }).base64EncodedString()

    init(settings: APISettings = APISettings(host: "127.0.0.1", port: 0)) async throws {
        folder = try TemporaryFolder("pizzad-api")
        let store = try SQLiteOrderStore(path: folder.path + "/pizzad.sqlite", migrations: Self.migrations)
        orders = OrderBook(store: store)
        var tokens: [DeviceRole: String] = [:]
        for role in DeviceRole.allCases {
            let token = DeviceTokens.make()
            try await store.addDevice(
                name: "\(role.rawValue)-1", role: role, tokenSHA256: DeviceTokens.sha256(of: token), signingSecret: nil)
            tokens[role] = token
        }
        try await store.addDevice(name: "shop-online", role: .platform, tokenSHA256: nil, signingSecret: secret)
        self.tokens = tokens
        let menu = self.menu
        api = try OrderAPI(
            orders: orders, factory: { PizzaFactory(menu: menu.withLock { $0 }) },
            daemon: ChangeActor(uid: 110, name: "pizzad", pid: 42), document: "openapi: 3.1.0\n", settings: settings)
    }

    deinit { folder.remove() }

    /// Runs `body` with a client of the router, in process.
    func test<Value: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        try await Application(router: try api.router()).test(.router, body)
    }

    /// The headers of a request by `role` (its bearer token), with an Idempotency-Key when given.
    func headers(_ role: DeviceRole, key: String? = nil) -> HTTPFields {
        var fields: HTTPFields = [.authorization: "Bearer \(tokens[role]!)", .contentType: "application/json"]
        if let key { fields[HTTPField.Name("Idempotency-Key")!] = key }
        return fields
    }

    /// `text` as a request body.
    static func body(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    /// Runs `sql` on the database file through a connection of its own (what another program, or time, does).
    func write(_ sql: String) throws {
        let database = try Database(path: folder.path + "/pizzad.sqlite")
        try database.execute(sql)
    }

    /// The count of orders in the database.
    func orderCount() throws -> Int64 {
        try orders.store.read { try $0.statement("SELECT count(*) FROM carts").first { $0.int64(0) } ?? -1 }
    }
}

extension TestResponse {
    /// The body parsed as JSON.
    var json: JSONValue { (try? JSONParser.parse(Array(body.readableBytesView))) ?? .null }

    /// The problem's name (`not_found`), from its `type`.
    var problem: String? {
        json["type"]?.stringValue.map { String($0.split(separator: ":").last ?? "") }
    }
}

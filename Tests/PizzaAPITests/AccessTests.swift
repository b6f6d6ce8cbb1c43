import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PizzaCore
import PizzaStorage
import Testing

@testable import PizzaAPI

/// Who may do what over the order API: tokens, signatures, roles, revocation, lockout and rate (CONTRACT section 15).
@Suite("Order API: devices, roles and limits")
struct AccessTests {
    static let order = #"{"items":[{"kind":"cheese"}]}"#

    @Test("no token, a wrong one, or a malformed header: 401 unauthenticated with WWW-Authenticate and no order data")
    func unauthenticated() async throws {
        let fixture = try await APIFixture()
        try await fixture.test { client in
            _ = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "1"),
                body: APIFixture.body(#"{"customer":"Ann","items":[{"kind":"cheese"}]}"#))
            for headers: HTTPFields in [
                [:], [.authorization: "Bearer pzd_not-a-token"], [.authorization: "Basic YTpi"],
                [.authorization: "Bearer "],
            ] {
                let refused = try await client.execute(uri: "/v1/orders/1", method: .get, headers: headers)
                #expect(refused.status == .unauthorized && refused.problem == "unauthenticated", "\(headers)")
                #expect(refused.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
                #expect(!String(buffer: refused.body).contains("Ann"))
            }
            let document = try await client.execute(uri: "/v1/openapi.yaml", method: .get)
            #expect(document.status == .ok && String(buffer: document.body).hasPrefix("openapi: 3.1"))
        }
    }

    @Test(
        "each role has exactly the contract's rights",
        arguments: [
            (DeviceRole.till, ["menu", "create", "place", "cancel", "read"]),
            (.kitchen, ["advance", "read", "events"]), (.reader, ["read", "events"]),
            (.platform, ["create", "cancel", "read"]),
        ])
    func roles(role: DeviceRole, rights: [String]) async throws {
        let fixture = try await APIFixture()
        try await fixture.test { client in
            // An order of this device's own (made by the till when this role may not create), placed and open.
            let maker: DeviceRole = rights.contains("create") ? role : .till
            _ = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(maker, key: "mine"),
                body: APIFixture.body(#"{"items":[{"kind":"cheese"}],"place":true}"#))
            let checks: [(String, String, HTTPRequest.Method, String?)] = [
                ("menu", "/v1/menu", .get, nil), ("read", "/v1/orders/1", .get, nil),
                ("read", "/v1/orders", .get, nil), ("advance", "/v1/orders/1/advance", .post, "{}"),
                ("cancel", "/v1/orders/1/cancel", .post, #"{"reason":"test"}"#),
                // The order just created (2, open) is the one placed.
                ("create", "/v1/orders", .post, Self.order), ("place", "/v1/orders/2/place", .post, "{}"),
            ]
            for (right, uri, method, body) in checks {
                let response = try await client.execute(
                    uri: uri, method: method, headers: fixture.headers(role, key: "k-\(right)-\(uri)"),
                    body: body.map(APIFixture.body))
                if rights.contains(right) {
                    // Not only "not forbidden": the right is exercised and succeeds (a 500 or a 409 would fail).
                    #expect(
                        response.status == (right == "create" ? .created : .ok),
                        "\(role) may \(right): \(response.status) \(String(buffer: response.body))")
                } else {
                    #expect(
                        response.status == .forbidden && response.problem == "permission_denied",
                        "\(role) may not \(right): \(response.status)")
                }
            }
        }
    }

    @Test("a platform reads, lists and cancels only the orders it created")
    func platformOwnOrders() async throws {
        let fixture = try await APIFixture()
        try await fixture.test { client in
            let tills = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "t"),
                body: APIFixture.body(Self.order))
            #expect(tills.status == .created)
            let own = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.platform, key: "p"),
                body: APIFixture.body(Self.order))
            #expect(own.status == .created)
            #expect(
                try await client.execute(uri: "/v1/orders/1", method: .get, headers: fixture.headers(.platform)).status
                    == .notFound)
            #expect(
                try await client.execute(uri: "/v1/orders/2", method: .get, headers: fixture.headers(.platform)).status
                    == .ok)
            let cancel = try await client.execute(
                uri: "/v1/orders/1/cancel", method: .post, headers: fixture.headers(.platform),
                body: APIFixture.body(#"{"reason":"not mine"}"#))
            #expect(cancel.status == .notFound)
            let list = try await client.execute(uri: "/v1/orders", method: .get, headers: fixture.headers(.platform))
            #expect(list.json["orders"]?.arrayValue?.compactMap { $0["id"]?.intValue } == [2])
        }
    }

    @Test("a revoked device is refused from its next request on")
    func revoked() async throws {
        let fixture = try await APIFixture()
        try await fixture.test { client in
            #expect(
                try await client.execute(uri: "/v1/menu", method: .get, headers: fixture.headers(.till)).status == .ok)
            try await fixture.orders.store.revokeDevice(name: "till-1")
            try fixture.api.directory.reload()
            let refused = try await client.execute(uri: "/v1/menu", method: .get, headers: fixture.headers(.till))
            #expect(refused.status == .unauthorized)
        }
        let devices = try fixture.orders.store.devices()
        #expect(devices.first { $0.name == "till-1" }?.revokedAt != nil)
    }

    @Test("a revoked device is added again under its name (a lost token): the new token works, the old one never")
    func addedAgain() async throws {
        let fixture = try await APIFixture()
        let old = fixture.headers(.till)
        try await fixture.orders.store.revokeDevice(name: "till-1")
        let token = DeviceTokens.make()
        try await fixture.orders.store.addDevice(
            name: "till-1", role: .till, tokenSHA256: DeviceTokens.sha256(of: token), signingSecret: nil)
        try fixture.api.reloadDevices()
        try await fixture.test { client in
            let renewed = try await client.execute(
                uri: "/v1/menu", method: .get, headers: [.authorization: "Bearer \(token)"])
            #expect(renewed.status == .ok)
            #expect(try await client.execute(uri: "/v1/menu", method: .get, headers: old).status == .unauthorized)
        }
        let device = try #require(try fixture.orders.store.devices().first { $0.name == "till-1" })
        #expect(device.revokedAt == nil && device.role == .till)
        // An active device's name stays taken.
        await #expect(throws: DeviceError.exists("till-1")) {
            try await fixture.orders.store.addDevice(
                name: "till-1", role: .reader, tokenSHA256: DeviceTokens.sha256(of: DeviceTokens.make()),
                signingSecret: nil)
        }
    }

    @Test("failed authentications past the allowance answer 429 with Retry-After; a valid token is still served")
    func lockout() async throws {
        let fixture = try await APIFixture(
            settings: APISettings(host: "127.0.0.1", port: 0, failedAuthenticationsAllowed: 3))
        try await fixture.test { client in
            for attempt in 1...4 {
                let guess = try await client.execute(
                    uri: "/v1/menu", method: .get, headers: [.authorization: "Bearer pzd_guess\(attempt)"])
                #expect(guess.status == .unauthorized, "attempt \(attempt)")
            }
            let locked = try await client.execute(
                uri: "/v1/menu", method: .get, headers: [.authorization: "Bearer pzd_guess5"])
            #expect(locked.status == .tooManyRequests && locked.problem == "rate_limited")
            #expect(Int(locked.headers[.retryAfter] ?? "") ?? 0 > 0)
            let none = try await client.execute(uri: "/v1/menu", method: .get)
            #expect(none.status == .tooManyRequests, "no credential at all is a failure too")
            // Another till behind the same address (one NAT) with its valid token: served, reads and changes.
            let valid = try await client.execute(uri: "/v1/menu", method: .get, headers: fixture.headers(.till))
            #expect(valid.status == .ok, "\(valid.status)")
            let order = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fixture.headers(.till, key: "nat-1"),
                body: APIFixture.body(Self.order))
            #expect(order.status == .created, "\(String(buffer: order.body))")
            // A platform's signed push from the same address: served.
            let push = try await client.execute(
                uri: "/v1/orders", method: .post, headers: signed(Self.order, secret: fixture.secret, id: "msg_nat"),
                body: APIFixture.body(Self.order))
            #expect(push.status == .created, "\(String(buffer: push.body))")
        }
    }

    @Test("what counts is guesses: one stale token sent again and again is 401 each time, never a lockout")
    func staleToken() async throws {
        let fixture = try await APIFixture(
            settings: APISettings(host: "127.0.0.1", port: 0, failedAuthenticationsAllowed: 3))
        try await fixture.test { client in
            for attempt in 1...20 {
                let stale = try await client.execute(
                    uri: "/v1/menu", method: .get, headers: [.authorization: "Bearer pzd_revoked-long-ago"])
                #expect(stale.status == .unauthorized, "attempt \(attempt): \(stale.status)")
                let none = try await client.execute(uri: "/v1/menu", method: .get)
                #expect(none.status == .unauthorized, "attempt \(attempt) without a token: \(none.status)")
            }
            // Two new guesses beside them pass the allowance of three different credentials.
            for guess in ["pzd_a", "pzd_b"] {
                _ = try await client.execute(
                    uri: "/v1/menu", method: .get, headers: [.authorization: "Bearer \(guess)"])
            }
            let locked = try await client.execute(
                uri: "/v1/menu", method: .get, headers: [.authorization: "Bearer pzd_revoked-long-ago"])
            #expect(locked.status == .tooManyRequests)
        }
    }

    @Test("failures count by address: an IPv4 address as it is, an IPv6 one by its /64, a mapped IPv4 as IPv4")
    func lockoutAddresses() {
        #expect(AuthenticationFailures.address(of: "192.0.2.7") == "192.0.2.7")
        #expect(AuthenticationFailures.address(of: "2001:db8:0:1::7") == "2001:db8:0:1::/64")
        #expect(AuthenticationFailures.address(of: "2001:db8:0:1:ffff:1:2:3") == "2001:db8:0:1::/64")
        #expect(AuthenticationFailures.address(of: "2001:db8:0:2::7") == "2001:db8:0:2::/64")
        #expect(AuthenticationFailures.address(of: "::ffff:192.0.2.7") == "192.0.2.7")
        #expect(AuthenticationFailures.address(of: "::1") == "0:0:0:0::/64")
        #expect(AuthenticationFailures.address(of: "local") == "local")
        let failures = AuthenticationFailures(allowed: 1)
        let now = ContinuousClock.now
        for host in ["2001:db8:0:1::7", "2001:db8:0:1::8"] {
            failures.failed(AuthenticationFailures.address(of: host), credential: "pzd_" + host, now: now)
        }
        #expect(failures.lockedOut(AuthenticationFailures.address(of: "2001:db8:0:1::9"), now: now) != nil)
        #expect(failures.lockedOut(AuthenticationFailures.address(of: "2001:db8:0:2::9"), now: now) == nil)
    }

    @Test("a device's rate is a bucket of twice its rate per second, refilled at its rate; devices apart")
    func rateBucket() {
        let limiter = DeviceRateLimiter(perSecond: 2)
        let start = ContinuousClock.now
        let burst = (0..<6).map { _ in limiter.admit("till-1", now: start) }
        #expect(burst == [true, true, true, true, false, false], "a burst of twice the rate")
        #expect(limiter.admit("till-2", now: start), "another device has its own bucket")
        #expect(!limiter.admit("till-1", now: start + .milliseconds(400)))
        #expect(limiter.admit("till-1", now: start + .milliseconds(600)), "one token back after half a second")
        #expect(!limiter.admit("till-1", now: start + .milliseconds(600)))
    }

    @Test("a device beyond its rate gets 429 rate_limited with Retry-After; another device is not slowed")
    func rate() async throws {
        let fixture = try await APIFixture(settings: APISettings(host: "127.0.0.1", port: 0, requestsPerSecond: 1))
        try await fixture.test { client in
            // Two in the burst, then one a second: of 30 requests sent at once, at most 2 and one per second they
            // took are served, the rest refused. No timing can make this pass without the limit.
            let clock = ContinuousClock.now
            let responses = try await withThrowingTaskGroup(of: TestResponse.self) { group in
                for _ in 0..<30 {
                    group.addTask {
                        try await client.execute(uri: "/v1/menu", method: .get, headers: fixture.headers(.till))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let took = (ContinuousClock.now - clock).components.seconds
            let served = responses.filter { $0.status == .ok }.count
            let refused = responses.filter { $0.status == .tooManyRequests }
            #expect(served + refused.count == 30)
            #expect(served >= 2 && Int64(served) <= 3 + took, "\(served) served in \(took) s")
            let response = try #require(refused.first, "no 429 in 30 requests")
            #expect(response.problem == "rate_limited" && response.headers[.retryAfter] == "1")
            let other = try await client.execute(uri: "/v1/orders", method: .get, headers: fixture.headers(.reader))
            #expect(other.status == .ok)
        }
    }

    /// Standard Webhooks headers over `body` with `secret`, stamped `seconds` from now.
    func signed(_ body: String, secret: String, id: String, seconds: Int = 0) -> HTTPFields {
        let key = Data(base64Encoded: String(secret.dropFirst(6)))!
        let stamp = String(Int(Timestamp.now().millisecondsSince1970 / 1000) + seconds)
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data("\(id).\(stamp).\(body)".utf8), using: SymmetricKey(data: key))
        return [
            HTTPField.Name("webhook-id")!: id, HTTPField.Name("webhook-timestamp")!: stamp,
            HTTPField.Name("webhook-signature")!: "v1,bm90LXRoaXMtb25l v1," + Data(mac).base64EncodedString(),
            HTTPField.Name("Idempotency-Key")!: id,
        ]
    }

    @Test("a platform that signs its pushes: a good signature creates, a wrong secret or an old stamp is 401")
    func signatures() async throws {
        let fixture = try await APIFixture()
        try await fixture.test { client in
            let good = try await client.execute(
                uri: "/v1/orders", method: .post, headers: signed(Self.order, secret: fixture.secret, id: "msg_1"),
                body: APIFixture.body(Self.order))
            #expect(good.status == .created, "\(String(buffer: good.body))")
            let other = "whsec_" + Data(repeating: 7, count: 32).base64EncodedString()
            let wrong = try await client.execute(
                uri: "/v1/orders", method: .post, headers: signed(Self.order, secret: other, id: "msg_2"),
                body: APIFixture.body(Self.order))
            #expect(wrong.status == .unauthorized)
            let stale = try await client.execute(
                uri: "/v1/orders", method: .post,
                headers: signed(Self.order, secret: fixture.secret, id: "msg_3", seconds: -600),
                body: APIFixture.body(Self.order))
            #expect(stale.status == .unauthorized)
            let tampered = try await client.execute(
                uri: "/v1/orders", method: .post, headers: signed(Self.order, secret: fixture.secret, id: "msg_4"),
                body: APIFixture.body(#"{"items":[{"kind":"seafood"}]}"#))
            #expect(tampered.status == .unauthorized)
        }
        let audit = try fixture.orders.store.auditEntries()
        #expect(audit.count == 1 && audit[0].actor.device == "shop-online")
    }

    @Test(
        "a signed push is keyed by its webhook-id: replayed with a fresh Idempotency-Key, or none, it gets the first answer"
    )
    func signedReplay() async throws {
        let fixture = try await APIFixture()
        try await fixture.test { client in
            let headers = signed(Self.order, secret: fixture.secret, id: "msg_once")
            let first = try await client.execute(
                uri: "/v1/orders", method: .post, headers: headers, body: APIFixture.body(Self.order))
            #expect(first.status == .created)
            // Captured and sent again within the five minutes, with a key of the attacker's choosing, or without one.
            var fresh = headers
            fresh[HTTPField.Name("Idempotency-Key")!] = nil
            let unkeyed = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fresh, body: APIFixture.body(Self.order))
            #expect(unkeyed.status == .created && unkeyed.body == first.body)
            #expect(unkeyed.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            fresh[HTTPField.Name("Idempotency-Key")!] = "a-fresh-key"
            let rekeyed = try await client.execute(
                uri: "/v1/orders", method: .post, headers: fresh, body: APIFixture.body(Self.order))
            #expect(rekeyed.status == .badRequest && rekeyed.problem == "validation")
        }
        #expect(try fixture.orderCount() == 1)
    }
}

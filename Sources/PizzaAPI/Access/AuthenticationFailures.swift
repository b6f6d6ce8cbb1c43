import Glibc
import PizzaCore

/// Failed authentications by address: past the allowed count of different credentials within a minute, the address
/// is locked out for a minute, and each further failure from it is answered 429 with `Retry-After`, so that tokens
/// cannot be guessed at speed. What is counted is guesses: a till sending its one stale token again and again is
/// refused 401 each time, never locked out (nor is a tester probing with one invalid credential), while each new
/// token tried counts. A request with a valid credential is not refused for it (``DeviceAuthentication``).
final class AuthenticationFailures: Sendable {
    private struct Window {
        var started: ContinuousClock.Instant
        /// The different credentials that failed in this window (by their hash; "none at all" is one).
        var credentials: Set<Int> = []
        var lockedUntil: ContinuousClock.Instant?
    }

    private let allowed: Int
    private let windows = Locked<[String: Window]>([:])
    static let window: Duration = .seconds(60)

    init(allowed: Int) { self.allowed = allowed }

    /// The address failures count against for a peer's host: an IPv4 address as it is (an IPv4-mapped IPv6 one as
    /// its IPv4), an IPv6 address by its /64, which one host is usually given whole (`2001:db8:0:1::/64`), so that
    /// it cannot step through its own addresses to escape the count.
    static func address(of host: String) -> String {
        guard host.contains(":") else { return host }
        var address = in6_addr()
        guard inet_pton(AF_INET6, host, &address) == 1 else { return host }
        let bytes = withUnsafeBytes(of: address) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            return bytes[12..<16].map { String($0) }.joined(separator: ".")
        }
        var groups: [String] = []
        for index in stride(from: 0, to: 8, by: 2) {
            groups.append(String(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]), radix: 16))
        }
        return groups.joined(separator: ":") + "::/64"
    }

    /// Seconds until `address` may try again, or nil when it may now.
    func lockedOut(_ address: String, now: ContinuousClock.Instant = .now) -> Int? {
        windows.withLock { windows in
            guard let until = windows[address]?.lockedUntil else { return nil }
            guard until > now else {
                windows[address] = nil
                return nil
            }
            return Int((until - now).components.seconds) + 1
        }
    }

    /// Counts a failure of `credential` (the text presented: a token, a signature, or empty for none) from
    /// `address`; returns the seconds it is now locked out for, if this one locked it.
    @discardableResult
    func failed(_ address: String, credential: String = "", now: ContinuousClock.Instant = .now) -> Int? {
        windows.withLock { windows in
            if windows.count > 100_000 { windows = windows.filter { $0.value.lockedUntil.map { $0 > now } ?? false } }
            var window = windows[address] ?? Window(started: now)
            if now - window.started > Self.window { window = Window(started: now) }
            window.credentials.insert(credential.hashValue)
            var locked: Int?
            if window.credentials.count > allowed, window.lockedUntil == nil {
                window.lockedUntil = now + Self.window
                locked = Int(Self.window.components.seconds)
            }
            windows[address] = window
            return locked
        }
    }
}

/// Each device's request rate: a token bucket of `perSecond` tokens a second, holding at most twice that.
final class DeviceRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var at: ContinuousClock.Instant
    }

    private let perSecond: Double
    private let buckets = Locked<[String: Bucket]>([:])

    init(perSecond: Int) { self.perSecond = Double(max(1, perSecond)) }

    /// Takes a token for `device`; false when it has none left.
    func admit(_ device: String, now: ContinuousClock.Instant = .now) -> Bool {
        buckets.withLock { buckets in
            var bucket = buckets[device] ?? Bucket(tokens: perSecond * 2, at: now)
            let elapsed = now - bucket.at
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(perSecond * 2, bucket.tokens + seconds * perSecond)
            bucket.at = now
            guard bucket.tokens >= 1 else {
                buckets[device] = bucket
                return false
            }
            bucket.tokens -= 1
            buckets[device] = bucket
            return true
        }
    }
}

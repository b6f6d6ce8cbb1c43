import Foundation
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// The addresses a webhook may not reach unless its entry says `allowPrivate: true`: loopback, link-local, private
/// and unique-local, so that a webhook's URL cannot be pointed at the shop's own network.
enum PrivateAddresses {
    /// Where a delivery to `url` connects: its host, and the one address checked for it.
    enum Pinned: Sendable, Equatable {
        /// Connect to `address` for `host` (the certificate is checked for `host`).
        case address(host: String, address: String)
        /// Refused, in words.
        case refused(String)
    }

    /// Resolves `url`'s host once, off the event loops (NIO's thread pool: a slow DNS server holds none of the
    /// connections), refuses it when any of its addresses is private and `allowPrivate` is not set, and names the
    /// address the delivery then connects to: the HTTP client does not look the name up again, so the address
    /// checked is the address reached (a name that rebinds to the shop's network between the two gains nothing).
    static func pin(
        url: String, allowPrivate: Bool, resolve: @escaping @Sendable (String) -> [String] = lookUp
    ) async -> Pinned {
        guard let host = URLComponents(string: url)?.host, !host.isEmpty else { return .refused("\(url) has no host") }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        let addresses: [String]
        if isLiteral(bare) {
            addresses = [bare]
        } else {
            do {
                addresses = try await NIOThreadPool.singleton.runIfActive { resolve(bare) }
            } catch {
                return .refused("\(host) could not be looked up: \(error)")
            }
        }
        guard let first = addresses.first else { return .refused("\(host) has no address") }
        if !allowPrivate, let address = addresses.first(where: isPrivate) {
            return .refused("\(host) is \(address), a private address (set allowPrivate: true to allow it)")
        }
        return .address(host: bare, address: first)
    }

    static func isLiteral(_ host: String) -> Bool { (try? SocketAddress(ipAddress: host, port: 0)) != nil }

    /// Whether `address` (an IPv4 or IPv6 literal) is loopback, link-local, private or unique-local.
    static func isPrivate(_ address: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            let bytes = withUnsafeBytes(of: v4.s_addr) { Array($0) }
            switch (bytes[0], bytes[1]) {
            case (127, _), (10, _), (0, _): return true
            case (169, 254), (192, 168): return true
            case (172, 16...31): return true
            case (100, 64...127): return true
            default: return false
            }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return true }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes.dropLast().allSatisfy({ $0 == 0 }) { return true }  // :: and ::1
        if bytes[0] & 0xFE == 0xFC { return true }  // fc00::/7
        if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return true }  // fe80::/10
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return isPrivate("\(bytes[12]).\(bytes[13]).\(bytes[14]).\(bytes[15])")  // ::ffff:a.b.c.d
        }
        return false
    }

    /// The addresses `host` has, from the system's resolver (blocking: run it off the event loops).
    static func lookUp(_ host: String) -> [String] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [String] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let current = node {
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(
                current.pointee.ai_addr, current.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0,
                NI_NUMERICHOST) == 0
            {
                addresses.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            node = current.pointee.ai_next
        }
        return addresses
    }
}

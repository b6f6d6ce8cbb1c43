import Foundation
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// The addresses a webhook may not reach unless its entry says `allowPrivate: true`: loopback, link-local, private
/// and unique-local, so that a webhook's URL cannot be pointed at the shop's own network.
enum PrivateAddresses {
    /// Why `url` is refused, or nil when every address its host has is public. The name is looked up here and again
    /// by the HTTP client.
    static func refusal(url: String) async -> String? {
        guard let host = URLComponents(string: url)?.host, !host.isEmpty else { return "\(url) has no host" }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        let addresses: [String]
        if isLiteral(bare) {
            addresses = [bare]
        } else {
            addresses = await Task.detached { lookUp(bare) }.value
        }
        guard !addresses.isEmpty else { return "\(host) has no address" }
        if let address = addresses.first(where: isPrivate) {
            return "\(host) is \(address), a private address (set allowPrivate: true to allow it)"
        }
        return nil
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

    private static func lookUp(_ host: String) -> [String] {
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

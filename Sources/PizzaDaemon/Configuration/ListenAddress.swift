#if canImport(Glibc)
    import Glibc
#endif

/// A TCP address to listen on, as `metrics.listen` writes it: `127.0.0.1:9464`, `[::1]:9464` or `localhost:9464`.
///
/// Only IP literals and `localhost` are taken: a name that needs DNS would make start-up depend on the network.
/// Port 0 asks the kernel for any free port (the log says which).
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The IP address, without brackets (`127.0.0.1`, `::1`).
    public var host: String
    /// The TCP port (0: any free one).
    public var port: Int

    /// `host`:`port`.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Reads `HOST:PORT`; nil when it is not one.
    public init?(parsing text: String) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return nil
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
            guard Self.isIPv6(host) else { return nil }
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            guard host == "localhost" || Self.isIPv4(host) else { return nil }
        }
        guard !portText.isEmpty, portText.allSatisfy(\.isASCII), let port = Int(portText), (0...65_535).contains(port)
        else {
            return nil
        }
        self.host = host == "localhost" ? "127.0.0.1" : String(host)
        self.port = port
    }

    /// `127.0.0.1:9464` or `[::1]:9464`.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    private static func isIPv4(_ text: Substring) -> Bool { parses(text, family: AF_INET) }

    private static func isIPv6(_ text: Substring) -> Bool { parses(text, family: AF_INET6) }

    /// Whether `inet_pton(3)` takes `text` as an address of `family`.
    private static func parses(_ text: Substring, family: Int32) -> Bool {
        var buffer = (UInt64(0), UInt64(0))
        return withUnsafeMutableBytes(of: &buffer) { inet_pton(family, String(text), $0.baseAddress) == 1 }
    }
}

import CSystemShims

#if canImport(Glibc)
    import Glibc
#endif

/// Tells systemd how the daemon is doing, with the sd_notify protocol: one datagram per message to the socket in
/// `$NOTIFY_SOCKET` (a path, or `@name` in the abstract namespace). See sd_notify(3).
///
/// Does nothing when `NOTIFY_SOCKET` is unset, so the daemon runs the same outside systemd.
public final class SystemdNotifier: Sendable {
    private let address: String?
    /// How often to ping the watchdog (half of `$WATCHDOG_USEC`), when systemd asked for pings.
    public let watchdogInterval: Duration?

    /// A notifier for `NOTIFY_SOCKET` in `environment`; one that does nothing without it.
    public init(environment: [String: String]) {
        let address = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        self.address = address
        if let usec = environment["WATCHDOG_USEC"].flatMap(UInt64.init), usec > 0,
            environment["WATCHDOG_PID"].flatMap(Int32.init).map({ $0 == getpid() }) ?? true
        {
            watchdogInterval = .microseconds(usec / 2)
        } else {
            watchdogInterval = nil
        }
    }

    /// Whether there is a systemd to tell.
    public var isEnabled: Bool { address != nil }

    /// Sends `state` (lines like `READY=1`, `STATUS=…`) without blocking. Returns false when it could not be sent.
    @discardableResult
    public func notify(_ state: String) -> Bool {
        guard let address else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        // Never blocks: this runs on an event loop, and a receiver that does not read (a busy or stuck manager, a
        // test's listener) fills the datagram queue (net.unix.max_dgram_qlen, 10 by default) within seconds of
        // watchdog pings. A routine message it has no room for is dropped (the next round sends STATUS and
        // WATCHDOG again); READY=1 and STOPPING=1, said once, are retried for up to half a second.
        let attempts = state.contains("READY=1") || state.contains("STOPPING=1") ? 50 : 1
        for attempt in 1...attempts {
            let sent = state.utf8CString.withUnsafeBufferPointer { message in
                pizzad_sendto_unix(
                    fd, message.baseAddress, message.count - 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT), address)
            }
            if sent >= 0 { return true }
            guard errno == EAGAIN || errno == EWOULDBLOCK, attempt < attempts else { return false }
            usleep(10_000)
        }
        return false
    }
}

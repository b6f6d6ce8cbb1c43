public import ServiceLifecycle

/// Writes when each device was last seen, and from where, every few seconds and once more at shutdown: one write
/// for all the requests in between, never one per request.
public struct DeviceSeenRecorder: Service {
    let directory: DeviceDirectory
    let interval: Duration

    /// Writes what `directory` saw every `interval`.
    public init(directory: DeviceDirectory, interval: Duration = .seconds(5)) {
        self.directory = directory
        self.interval = interval
    }

    /// Runs until the graceful shutdown, writing once more at the end.
    public func run() async throws {
        // Each pass sleeps until the interval or the shutdown, whichever comes first, then writes; so the last pass
        // writes what was seen up to the shutdown.
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let interval = interval
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            try? await directory.flushSeen()
        }
    }
}

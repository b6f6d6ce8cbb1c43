import CSystemShims
import Foundation

/// A release pizzad started by the benchmark, with a notify socket to time its readiness.
final class BenchDaemon {
    let process = Process()
    let socket: String
    let database: String
    /// Nanoseconds from spawn to READY=1.
    private(set) var readyAfter: UInt64 = 0

    /// Starts pizzad on `database` (default: in `directory`), with `config` (YAML text) and more `environment`
    /// variables if given, and waits for READY=1.
    init(
        binary: String, directory: String, database: String? = nil, config: String? = nil,
        environment extra: [String: String] = [:]
    ) throws {
        socket = directory + "/pizzad.sock"
        self.database = database ?? directory + "/pizzad.sqlite"
        let notifyPath = directory + "/notify-\(UInt32.random(in: 0...UInt32.max)).sock"
        let notify = socketFD(bindingDatagramAt: notifyPath)
        defer {
            close(notify)
            unlink(notifyPath)
        }
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--database", self.database, "--socket", socket, "--log-level", "warning"]
        if let config {
            let path = directory + "/pizzabench.yaml"
            try Data(config.utf8).write(to: URL(fileURLWithPath: path))
            process.arguments! += ["--config", path]
        }
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var environment = ProcessInfo.processInfo.environment
        environment.merge(extra) { $1 }
        environment["NOTIFY_SOCKET"] = notifyPath
        process.environment = environment
        let started = Bench.now()
        try process.run()
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let count = recv(notify, &buffer, buffer.count, 0)
            if count > 0, String(decoding: buffer[..<count], as: UTF8.self).contains("READY=1") { break }
            guard process.isRunning else { throw BenchError("pizzad exited before READY=1") }
        }
        readyAfter = Bench.now() - started
    }

    var pid: Int32 { process.processIdentifier }

    func stop() {
        kill(pid, SIGTERM)
        process.waitUntilExit()
    }
}

private func socketFD(bindingDatagramAt path: String) -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
    _ = pizzad_bind_unix(fd, path)
    var timeout = timeval(tv_sec: 60, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    return fd
}

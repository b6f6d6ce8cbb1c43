import Foundation
import PizzaTesting

/// A real Prometheus server (Debian's `prometheus`) in a temporary folder on a loopback port, scraping the given
/// targets every second and evaluating `ruleFiles` every second. Stopped and removed when released.
public final class PrometheusServer {
    public let port: Int
    public let directory: String
    private let process = Process()
    private let logPath: String

    public init(job: String, targets: [String], ruleFiles: [String] = []) throws {
        directory = MemoryFolder.temporary + "pizzad-prometheus-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory + "/data", withIntermediateDirectories: true)
        port = try freeLoopbackPort()
        let rules = ruleFiles.map { "  - \($0)" }.joined(separator: "\n")
        let config = """
            global:
              scrape_interval: 1s
              scrape_timeout: 1s
              evaluation_interval: 1s
            rule_files:
            \(rules.isEmpty ? "  []" : rules)
            scrape_configs:
              - job_name: \(job)
                static_configs:
                  - targets: [\(targets.map { "\"\($0)\"" }.joined(separator: ", "))]
            """
        try Data(config.utf8).write(to: URL(fileURLWithPath: directory + "/prometheus.yml"))
        logPath = directory + "/prometheus.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "prometheus", "--config.file=\(directory)/prometheus.yml", "--storage.tsdb.path=\(directory)/data",
            "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn",
        ]
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = log
        process.standardError = log
        try process.runWithCleanSignals()
        try log.close()
        let deadline = TimeLimit(seconds: 30)
        while deadline.remains {
            if !process.isRunning { throw HarnessError("prometheus exited:\n\(self.log)") }
            if (try? httpGet(port: port, "/-/ready"))?.status == 200 { return }
            usleep(100_000)
        }
        throw HarnessError("prometheus did not get ready within 30 s:\n\(self.log)")
    }

    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// GET an API path; the decoded JSON's `data`, or a failure naming Prometheus' `error`.
    public func api(_ path: String) throws -> Any {
        let response = try httpGet(port: port, path, version: "1.0")
        guard let object = try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any] else {
            throw HarnessError("not JSON from \(path): \(response)")
        }
        guard object["status"] as? String == "success" else {
            throw HarnessError("\(path): \(object["errorType"] ?? "") \(object["error"] ?? "")")
        }
        return object["data"] ?? NSNull()
    }

    /// An instant query's result vector: each sample's labels and value.
    public func query(_ expression: String) throws -> [(labels: [String: String], value: Double)] {
        let encoded = expression.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? expression
        guard let data = try api("/api/v1/query?query=\(encoded)") as? [String: Any] else { return [] }
        guard let result = data["result"] as? [[String: Any]] else { return [] }  // a scalar or string result
        return result.map { sample in
            let labels = sample["metric"] as? [String: String] ?? [:]
            let value = (sample["value"] as? [Any])?.last.flatMap { $0 as? String }.flatMap(Double.init) ?? .nan
            return (labels, value)
        }
    }

    /// Waits until `condition` holds for a query's result, or `timeout` passes; returns the last result.
    public func waitFor(
        _ expression: String, timeout: Double = 20, _ condition: ([(labels: [String: String], value: Double)]) -> Bool
    ) throws -> [(labels: [String: String], value: Double)] {
        let deadline = TimeLimit(seconds: timeout)
        var last = try query(expression)
        while !condition(last), deadline.remains {
            usleep(250_000)
            last = try query(expression)
        }
        return last
    }

    deinit {
        if process.isRunning {
            process.terminate()
            _ = waitForExit(process)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

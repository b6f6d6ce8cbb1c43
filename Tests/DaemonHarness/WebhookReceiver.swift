import Foundation
import PizzaTesting

#if canImport(Testing)
    public import Testing
#endif

/// A webhook endpoint that verifies every delivery with PyPI's `standardwebhooks` (`Outbox/webhook_receiver.py`, in
/// the venv `.ci/run` makes), answering as its script says, and logging what it received.
public final class WebhookReceiver {
    /// One delivery it received and verified (or could not).
    public struct Record: Decodable {
        public var verified: Bool
        public var answered: Int?
        public var id: String?
        public var timestamp: Int64?
        public var received: Double?
        public var seq: Int64?
        public var kind: String?
        public var order: Int64?
        public var status: String?
        /// For an item's availability: the item and whether it is available now.
        public var item: String?
        public var available: Bool?
        /// For a Z report: its number.
        public var report: Int64?
        public var error: String?
    }

    public let port: Int
    public let secret: String
    public let secretFile: String
    private let log: String
    private let process: Process

    public static let python = Binaries.repository + "/.cache/standardwebhooks/bin/python"

    /// Whether the venv is there; tests skip with a reason when it is not.
    public static var available: Bool { FileManager.default.isExecutableFile(atPath: python) }

    /// A receiver writing its log and its secret into `folder`; `script` and `always` as the script's usage says.
    public init(
        in folder: String, name: String = "hook", script: [String] = [], always: String? = nil,
        tls: (String, String)? = nil
    )
        throws
    {
        var key = [UInt8](repeating: 0, count: 32)
        for index in key.indices { key[index] = UInt8.random(in: 0...255) }
        secret = "whsec_" + Data(key).base64EncodedString()
        secretFile = folder + "/\(name).secret"
        try Data((secret + "\n").utf8).write(to: URL(fileURLWithPath: secretFile))
        log = folder + "/\(name).jsonl"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python)
        var arguments = [
            Binaries.repository + "/Tests/PizzaDaemonTests/Outbox/webhook_receiver.py", "--secret", secret, "--log",
            log,
            "--script", script.joined(separator: ","),
        ]
        if let always { arguments += ["--always", always] }
        if let tls { arguments += ["--tls", tls.0, tls.1] }
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.runWithCleanSignals()
        let first = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard let port = Int(first.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw HarnessError("the webhook receiver did not start: \(first)")
        }
        self.port = port
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
    }

    public var url: String { "http://127.0.0.1:\(port)/hook" }

    /// What it logged, in order.
    public func records() throws -> [Record] {
        let text = try String(contentsOfFile: log, encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONDecoder().decode(Record.self, from: Data($0.utf8)) }
    }

    /// The deliveries it accepted (answered 2xx).
    public func accepted() throws -> [Record] { try records().filter { ($0.answered ?? 0) / 100 == 2 } }
}

#if canImport(Testing)
    extension WebhookReceiver {
        /// Why a test that needs the receiver is skipped, as the order API's schemathesis test says it.
        public static let missing: Comment =
            "standardwebhooks is not installed in .cache/standardwebhooks (.ci/run installs it)"
    }
#endif

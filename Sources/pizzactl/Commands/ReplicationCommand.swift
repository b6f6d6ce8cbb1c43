import ArgumentParser
import PizzaProtocol
import PizzaWire

struct ReplicationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replication", abstract: "Shipping to the central PostgreSQL: where it stands, and a check.",
        subcommands: [Status.self, Verify.self])

    struct Status: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the peer, whether it is connected or the last error, what was shipped and the backlog.",
            discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl

        func run() async throws {
            try await global.call(.replicationStatus) { status in
                guard status["enabled"]?.boolValue == true else {
                    print(
                        "replication: off (set replication.postgres.host, .database, .user and replication.shopId in pizzad.yaml)"
                    )
                    return
                }
                print("shop \(Output.text(status["shop"])) → \(Output.text(status["peer"]))")
                let connected = status["connected"]?.boolValue == true
                print("state: \(Output.text(status["state"]))\(connected ? ", connected" : ", not connected")")
                if let error = status["lastError"]?.stringValue {
                    print("last error (\(Output.time(status["lastErrorAt"]?.stringValue))): \(error)")
                }
                print("shipped: \(Output.text(status["shippedSeq"])) of \(Output.text(status["latestSeq"]))")
                print(
                    "backlog: \(Output.text(status["backlogEvents"])) events, \(Output.text(status["backlogSeconds"])) s"
                )
                print(
                    "since start: \(Output.text(status["batches"])) batches, \(Output.text(status["events"])) events, \(Output.text(status["errors"])) errors"
                )
            }
        }
    }

    struct Verify: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare this shop's audit chain with the centre's at the centre's last sequence number.",
            discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl

        func run() async throws {
            let result = try await global.withDaemon { try await $0.call(.replicationVerify) }
            if global.json { print(result.prettyText) }
            guard result["ok"]?.boolValue == true else {
                throw CommandFailure(message: "replication does not verify: \(Output.text(result["problem"]))")
            }
            if !global.json {
                print(
                    "replication ok: the centre holds entries 1…\(Output.text(result["centralSeq"])) of shop \(Output.text(result["shop"])) "
                        + "with the same hash at \(Output.text(result["centralSeq"])) (\(Output.text(result["centralOrders"])) orders)"
                )
            }
        }
    }
}

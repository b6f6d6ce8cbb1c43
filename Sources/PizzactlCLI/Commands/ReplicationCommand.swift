import ArgumentParser
import PizzaProtocol
import PizzaWire

struct ReplicationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replication", abstract: "Shipping to the central PostgreSQL: where it stands, and a check.",
        subcommands: [Status.self, Verify.self])

    struct Status: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show the peer, whether it is connected or the last error, what was shipped and the backlog.",
            discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl

        func run() async throws {
            try await global.call(.replicationStatus, as: ReplicationStatusAnswer.self) { answer in
                guard let status = answer.shipping else {
                    print(
                        "replication: off (set replication.postgres.host, .database, .user and replication.shopId in pizzad.yaml)"
                    )
                    return
                }
                print("shop \(status.shop) → \(status.peer)")
                print("state: \(status.state)\(status.connected ? ", connected" : ", not connected")")
                if let error = status.lastError { print("last error (\(Output.time(status.lastErrorAt))): \(error)") }
                print("shipped: \(status.shippedSeq) of \(status.latestSeq)")
                print("backlog: \(status.backlogEvents) events, \(status.backlogSeconds) s")
                print("since start: \(status.batches) batches, \(status.events) events, \(status.errors) errors")
            }
        }
    }

    struct Verify: AsyncParsableCommand, PizzactlCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Compare this shop's audit chain with the centre's at the centre's last sequence number.",
            discussion: GlobalOptions.help)
        @ParentCommand var pizzactl: Pizzactl

        func run() async throws {
            let result = try await global.answer(.replicationVerify, as: ReplicationVerifyAnswer.self)
            guard result.ok else {
                throw CommandFailure(message: "replication does not verify: \(result.problem ?? "-")")
            }
            if !global.json {
                let seq = result.centralSeq.map(String.init) ?? "-"
                print(
                    "replication ok: the centre holds entries 1…\(seq) of shop \(result.shop) "
                        + "with the same hash at \(seq) (\(result.centralOrders.map(String.init) ?? "-") orders)")
            }
        }
    }
}

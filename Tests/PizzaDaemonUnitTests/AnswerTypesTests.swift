import Foundation
import PizzaCore
import PizzaProtocol
import PizzaWire
import Testing

/// The daemon's real answers read as the types pizzactl reads them with: each method called in process over a real
/// SQLite file, its result decoded as its ``Answer`` and written back to the same text. A field the daemon renames
/// or drops fails here, not as a "-" in one of pizzactl's tables.
@Suite("The daemon's answers are the typed answers")
struct AnswerTypesTests {
    let daemon: InProcessDaemon

    init() async throws {
        daemon = try await InProcessDaemon(
            config: "printers:\n  - {name: kitchen, address: \"127.0.0.1:9\"}\n")
    }

    /// The result of `method` with `params` (JSON text), or the error it answered.
    func result(_ method: String, _ params: String = "{}") async throws -> JSONValue {
        let line = #"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":\#(params)}"#
        let answer = try JSONParser.parse(
            String(
                decoding: await daemon.answerLine(line, peer: .init(uid: getuid(), gid: getgid(), pid: getpid())),
                as: UTF8.self))
        return try #require(answer["result"], "\(method) answered \(answer.jsonText)")
    }

    /// Reads `json` as `A` and checks it writes back the same text.
    func check<A: Answer>(_ json: JSONValue, as type: A.Type, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let answer = try A(json: json)
        #expect(try answer.json.jsonText == json.jsonText, sourceLocation: sourceLocation)
    }

    @Test("every method but events.watch answers its type", arguments: RPCMethod.allCases)
    func everyMethod(_ method: RPCMethod) async throws {
        let created = try await result(
            "order.create", #"{"customer":"Ada","items":[{"kind":"cheese"}],"place":true}"#)
        let id = try #require(created["id"]?.intValue)
        switch method {
        case .hello: try check(try await result(method.rawValue), as: HelloAnswer.self)
        case .status: try check(try await result(method.rawValue), as: StatusAnswer.self)
        case .menu: try check(try await result(method.rawValue), as: MenuAnswer.self)
        case .metrics: try check(try await result(method.rawValue), as: MetricsAnswer.self)
        case .watch: return  // a stream: its notifications are WatchNotification (AnswerTests, WatchTests)
        case .auditList: try check(try await result(method.rawValue), as: AuditListAnswer.self)
        case .auditVerify:
            let verify = try AuditVerifyAnswer(json: try await result(method.rawValue))
            #expect(verify.ok && verify.entries == 1)  // one change: created and placed at once
        case .backup:
            let path = daemon.folder.path + "/copy.sqlite"
            let backup = try BackupAnswer(json: try await result(method.rawValue, #"{"path":"\#(path)"}"#))
            #expect(backup.path == path && backup.bytes > 0)
        case .check: try check(try await result(method.rawValue), as: CheckAnswer.self)
        case .boardSnapshot:
            let snapshot = try BoardSnapshotAnswer(json: try await result(method.rawValue))
            #expect(snapshot.orders.map(\.id) == [id] && snapshot.printers.map(\.name) == ["kitchen"])
            #expect(snapshot.board.marks(.placed) != nil)
        case .replicationStatus:
            #expect(try ReplicationStatusAnswer(json: try await result(method.rawValue)).shipping == nil)
        case .replicationVerify: return  // off here; ReplicationTests read it from a real centre
        case .deviceAdd:
            let added = try DeviceAddAnswer(
                json: try await result(method.rawValue, #"{"name":"till-1","role":"till"}"#))
            #expect(added.role == .till && added.token != nil)
        case .deviceList:
            _ = try await result(RPCMethod.deviceAdd.rawValue, #"{"name":"till-1","role":"till"}"#)
            try check(try await result(method.rawValue), as: DeviceListAnswer.self)
        case .deviceRevoke:
            _ = try await result(RPCMethod.deviceAdd.rawValue, #"{"name":"till-1","role":"till"}"#)
            let revoked = try DeviceAnswer(json: try await result(method.rawValue, #"{"name":"till-1"}"#))
            #expect(revoked.revokedAt != nil)
        case .outboxList:
            let list = try OutboxListAnswer(json: try await result(method.rawValue))
            #expect(list.destinations.map(\.kind) == [.printer])
            try check(try await result(method.rawValue), as: OutboxListAnswer.self)
        case .outboxRetry:
            try check(try await result(method.rawValue, #"{"name":"kitchen"}"#), as: OutboxRetryAnswer.self)
        case .orderPrint:
            let printed = try PrintAnswer(json: try await result(method.rawValue, #"{"id":\#(id),"preview":true}"#))
            guard case .preview(let text) = try #require(printed.tickets.first).outcome else {
                Issue.record("not a preview: \(printed)")
                return
            }
            #expect(text.contains("REPRINT"))
        case .menuSetAvailable:
            let off = try AvailabilityAnswer(
                json: try await result(method.rawValue, #"{"item":"olives","available":false}"#))
            #expect(off == AvailabilityAnswer(item: "olives", available: false))
            #expect(try MenuAnswer(json: try await result(RPCMethod.menu.rawValue)).unavailable == ["olives"])
        case .reportX:
            let x = try ZReport(json: try await result(method.rawValue))
            #expect(x.number == 1 && x.placed.count == 1)
            try check(try await result(method.rawValue), as: ZReport.self)
        case .reportZ:
            let z = try ZReport(json: try await result(method.rawValue, #"{"ref":"day-1"}"#))
            #expect(z.number == 1 && z.placed.count == 1 && z.lastSeq == 2)
        case .reportGet:
            _ = try await result(RPCMethod.reportZ.rawValue)
            try check(try await result(method.rawValue, #"{"number":1}"#), as: ZReport.self)
        case .reportList:
            _ = try await result(RPCMethod.reportZ.rawValue)
            let list = try ReportListAnswer(json: try await result(method.rawValue))
            #expect(list.reports.map(\.number) == [1] && list.next == nil)
        case .reportVerify:
            _ = try await result(RPCMethod.reportZ.rawValue)
            let verified = try ReportVerifyAnswer(json: try await result(method.rawValue, #"{"number":1}"#))
            #expect(verified == ReportVerifyAnswer(number: 1, ok: true, firstDifference: nil))
        }
    }

    @Test("order.list answers its type")
    func orderList() async throws {
        _ = try await result("order.create", #"{"items":[{"kind":"cheese"}]}"#)
        let list = try await result(OrderOperation.list.rawValue)
        try check(list, as: OrderListAnswer.self)
        #expect(try OrderListAnswer(json: list).orders.count == 1)
    }
}

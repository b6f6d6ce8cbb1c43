import PizzaCore
import PizzaProtocol
import PizzaWire
import Testing

/// Every method's answer as one type: the contract's example (CONTRACT section 4's shapes, section 16's outbox)
/// read as the type and written back is the same text, member for member and in order, nulls included.
@Suite("Typed answers")
struct AnswerTests {
    /// One example: the answer's JSON and how to read and write it through its type.
    struct Example: CustomTestStringConvertible, Sendable {
        let method: String
        let json: String
        let roundTrip: @Sendable (JSONValue) throws -> JSONValue

        init<A: Answer>(_ method: String, _ type: A.Type, _ json: String) {
            self.method = method
            self.json = json
            roundTrip = { try A(json: $0).json }
        }

        var testDescription: String { method }
    }

    /// An order of CONTRACT section 17: a delivery with a pizza at 7% and two colas at 19%, 1.00 off the order
    /// (64.28 -> 64 food, 35.71 -> 35 drinks, the cent left to food: 65 and 35), the delivery fee at 19%, paid by
    /// card. Food 900 - 65 = 835, VAT 835 x 7/107 = 54.63 -> 55; drinks 500 - 35 + 250 = 715, VAT 715 x 19/119 =
    /// 114.16 -> 114. Total 1400 - 100 + 250 = 1550.
    static let order = #"""
        {"id":7,"ref":null,"customer":"Ada","note":null,"status":"placed","fulfilment":{"type":"delivery",\#
        "phone":"030 1234567","address":{"street":"Hauptstr. 5","postcode":"10115","city":"Berlin"},\#
        "dueAt":"2026-12-06T19:30:00.000Z"},"items":[{"id":1,"kind":"cheese","size":"M",\#
        "crust":"classic","chiliSauce":false,"ketchup":false,"extras":[],"quantity":1,"unitPrice":900,"price":900,\#
        "tax":"food","basisPoints":700},{"id":2,"product":"cola-033","name":"Cola 0.33 l","category":"drinks",\#
        "quantity":2,"options":[],"unitPrice":250,"price":500,"tax":"drinks","basisPoints":1900}],"subtotal":1400,\#
        "discounts":[{"id":3,"amount":100,"reason":"regular","by":{"uid":1000,"name":"ada","pid":42},\#
        "at":"2026-12-06T10:01:00.000Z"}],"fees":[{"kind":"delivery","amount":250,"tax":"drinks","basisPoints":1900}],\#
        "total":1550,"taxes":[{"rate":"drinks","basisPoints":1900,"gross":715,"net":601,"tax":114},{"rate":"food",\#
        "basisPoints":700,"gross":835,"net":780,"tax":55}],"payments":[{"id":4,"tender":"card","amount":1550,\#
        "at":"2026-12-06T10:01:00.000Z","by":{"uid":1000,"name":"ada","pid":42},"ref":"terminal-7"}],"paid":1550,\#
        "balance":0,"currency":"EUR","createdAt":"2026-12-06T10:00:00.000Z","updatedAt":"2026-12-06T10:01:00.000Z",\#
        "history":[{"from":null,"to":"open","at":"2026-12-06T10:00:00.000Z","actor":{"uid":1000,"name":"ada",\#
        "pid":42},"reason":null},{"from":"open","to":"placed","at":"2026-12-06T10:01:00.000Z","actor":{"uid":1000,\#
        "name":"ada","pid":42},"reason":null}]}
        """#

    static let examples: [Example] = [
        Example("daemon.hello", HelloAnswer.self, #"{"version":"0.4.0","protocol":"1.0","pid":4242}"#),
        Example(
            "daemon.status", StatusAnswer.self,
            #"""
            {"version":"0.4.0","pid":4242,"uptime":12.5,"storage":"ok","database":{"path":"/var/lib/pizzad/pizzad.sqlite",\#
            "bytes":4096,"schemaVersion":9,"journalMode":"wal","synchronous":"full","sqliteVersion":"3.46.1"},\#
            "orders":{"open":1,"placed":2,"preparing":0,"baking":0,"boxed":0,"shipped":0,"delivered":5,"cancelled":1},\#
            "delegates":4,"connections":1,"watchers":0,"metrics":null,"replication":{"enabled":false}}
            """#),
        Example("metrics.get", MetricsAnswer.self, ##"{"text":"# TYPE pizzad_orders_total counter\n"}"##),
        Example("order.list", OrderListAnswer.self, #"{"orders":[\#(order)],"next":null}"#),
        Example("audit.verify", AuditVerifyAnswer.self, #"{"ok":true,"entries":12,"firstBad":null,"problem":null}"#),
        Example(
            "audit.verify (failing)", AuditVerifyAnswer.self,
            #"{"ok":false,"entries":12,"firstBad":7,"problem":"entry 7's hash does not match"}"#),
        Example(
            "audit.list", AuditListAnswer.self,
            #"""
            {"entries":[{"seq":1,"at":"2026-12-06T10:00:00.000Z","actor":{"uid":0,"name":"root","pid":1,"device":"till-1",\#
            "address":"192.0.2.7:53122"},"action":"created","order":7,"status":"open","reason":null,"before":null,\#
            "after":\#(order),"hash":"ab12"}],"next":1}
            """#),
        Example("db.backup", BackupAnswer.self, #"{"path":"/var/backups/pizzad.sqlite","bytes":8192}"#),
        Example(
            "db.check", CheckAnswer.self, #"{"ok":true,"messages":["integrity_check: ok","foreign_key_check: ok"]}"#),
        Example(
            "device.add", DeviceAddAnswer.self,
            #"{"name":"till-1","role":"till","token":"pzd_abc","fingerprint":"AB:CD"}"#),
        Example(
            "device.list", DeviceListAnswer.self,
            #"""
            {"devices":[{"name":"till-1","role":"till","signs":false,"createdAt":"2026-12-06T10:00:00.000Z",\#
            "revokedAt":null,"lastSeenAt":"2026-12-06T11:00:00.000Z","lastAddress":"192.0.2.7:53122"}]}
            """#),
        Example(
            "outbox.list", OutboxListAnswer.self,
            #"""
            {"destinations":[{"name":"kitchen","kind":"printer","target":"192.0.2.9:9100","state":"failing",\#
            "deliveredSeq":10,"waiting":2,"oldestWaitingAt":"2026-12-06T10:00:00.000Z","failingSince":\#
            "2026-12-06T10:00:01.000Z","lastError":"connection refused","nextAttemptAt":"2026-12-06T10:00:05.000Z",\#
            "disabledAt":null,"disabledReason":null,"printer":"paper_out","delivered":10,"failed":3}]}
            """#),
        Example("outbox.retry", OutboxRetryAnswer.self, #"{"name":"kitchen","retrying":true}"#),
        Example(
            "order.print", PrintAnswer.self,
            #"""
            {"id":7,"tickets":[{"printer":"bar","skipped":"none of its kinds is on the order"},{"printer":"kitchen",\#
            "text":"REPRINT\n"},{"printer":"pass","printed":true,"error":null},{"printer":"oven","printed":false,\#
            "error":"connection refused"}]}
            """#),
        Example("replication.status (off)", ReplicationStatusAnswer.self, #"{"enabled":false}"#),
        Example(
            "replication.status", ReplicationStatusAnswer.self,
            #"""
            {"enabled":true,"shop":"berlin-1","peer":"centre:5432/pizzad","state":"idle","connected":true,\#
            "lastError":null,"lastErrorKind":null,"lastErrorAt":null,"shippedSeq":10,"latestSeq":10,"backlogEvents":0,\#
            "backlogSeconds":0.0,"batches":3,"events":10,"errors":0}
            """#),
        Example(
            "replication.verify", ReplicationVerifyAnswer.self,
            #"""
            {"ok":true,"shop":"berlin-1","shippedSeq":10,"centralSeq":10,"centralHash":"ab","localHash":"ab",\#
            "centralEvents":10,"centralOrders":3,"problem":null}
            """#),
        Example(
            "board.snapshot", BoardSnapshotAnswer.self,
            #"""
            {"seq":12,"board":{"showCustomer":true,"thresholds":{"placed":[120,300],"preparing":[300,600]}},\#
            "orders":[\#(order)],"now":"2026-12-06T10:05:00.000Z","printers":[{"name":"kitchen","status":"online"}],"unavailable":["cola-033"]}
            """#),
        Example(
            "menu.list", MenuAnswer.self,
            #"""
            {"currency":"EUR","kinds":[{"name":"cheese","prices":{"S":700,"M":900,"L":1100},"size":"M",\#
            "crust":"classic","chiliSauce":false,"ketchup":false,"extras":[],"available":true}],\#
            "crusts":["classic","thin"],"extras":{"olives":100},"sizes":["S","M","L","XL"],"products":[{"id":"cola-033",\#
            "name":"Cola 0.33 l","category":"drinks","price":250,"tax":"drinks","options":{},"available":false},\#
            {"id":"garlic-bread","name":"Garlic bread","category":"sides","price":450,"tax":"food",\#
            "options":{"extra-dip":60},"available":true}],"taxes":{"drinks":1900,"food":700},"pizzaTax":"food",\#
            "fees":{"delivery":{"amount":250,"tax":"food"}},"unavailable":["cola-033","olives"]}
            """#),
    ]

    @Test("the contract's example reads as its type and writes back the same text", arguments: examples)
    func roundTrip(_ example: Example) throws {
        let json = try JSONParser.parse(example.json)
        let written = try example.roundTrip(json)
        #expect(written.jsonText == json.jsonText)
    }

    @Test("a member renamed on one side is an error naming it, not a default")
    func renamedMember() throws {
        let json = try JSONParser.parse(#"{"version":"0.4.0","protocolVersion":"1.0","pid":4242}"#)
        let error = try #require(throws: (any Error).self) { try HelloAnswer(json: json) }
        #expect(AnswerError(method: "daemon.hello", error).problem == "no member protocol")
        let wrongType = try JSONParser.parse(#"{"ok":"yes","entries":1,"firstBad":null,"problem":null}"#)
        let mismatch = try #require(throws: (any Error).self) { try AuditVerifyAnswer(json: wrongType) }
        #expect(AnswerError(method: "audit.verify", mismatch).problem.hasPrefix("ok: expected a boolean"))
    }

    @Test("an outbox kind or a device role the contract does not list is refused")
    func enums() throws {
        let json = try JSONParser.parse(
            #"{"name":"x","role":"chef","token":null,"fingerprint":null}"#)
        #expect(throws: (any Error).self) { try DeviceAddAnswer(json: json) }
        #expect(DestinationKind.allCases.map(\.rawValue) == ["printer", "webhook"])
    }

    @Test("an event notification and a drop read as what they are; anything else is an error")
    func notifications() throws {
        let event = try JSONParser.parse(
            #"{"jsonrpc":"2.0","method":"event","params":{"seq":3,"at":"2026-12-06T10:01:00.000Z","kind":"placed","order":\#(Self.order)}}"#
        )
        guard case .event(let answer) = try WatchNotification(message: event) else {
            Issue.record("not an event")
            return
        }
        #expect(answer.seq == 3 && answer.order.id == 7 && answer.order.status == .placed)
        let dropped = try JSONParser.parse(#"{"jsonrpc":"2.0","method":"dropped","params":{"reason":"too slow"}}"#)
        guard case .dropped(let drop) = try WatchNotification(message: dropped) else {
            Issue.record("not a drop")
            return
        }
        #expect(drop.reason == "too slow")
        #expect(throws: AnswerError.self) {
            try WatchNotification(message: try JSONParser.parse(#"{"jsonrpc":"2.0","method":"other","params":{}}"#))
        }
    }
}

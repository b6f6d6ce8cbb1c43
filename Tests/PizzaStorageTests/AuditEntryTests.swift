import Foundation
import PizzaCore
import PizzaStorage
import PizzaTesting
import Testing

@Suite("Audit entry hash")
struct AuditEntryTests {
    @Test(
        "the hash is SHA-256 of the fields joined by U+001F, a missing one as U+0000, as sha256sum computes it",
        arguments: [nil, "customer called"])
    func hashFormat(reason: String?) throws {
        let entry = AuditEntry(
            seq: 42, at: "2026-11-23T10:00:00.123Z", actor: ChangeActor(uid: 1000, name: "cook", pid: 4242),
            action: "cancelled", orderID: 7, statusAfter: "cancelled", reason: reason,
            before: reason == nil ? nil : #"{"id":7,"status":"placed","note":"Grüße"}"#,
            after: #"{"id":7,"status":"cancelled","note":"Grüße"}"#, prevHash: String(repeating: "ab", count: 32),
            hash: "")
        let fields = [
            "42", entry.at, "1000", "cook", "4242", "cancelled", "7", "cancelled", reason ?? "\u{0}",
            entry.before ?? "\u{0}", entry.after, entry.prevHash,
        ]
        let directory = try TemporaryFolder("pizzad-test")
        let file = directory.path + "/fields"
        try Data(fields.joined(separator: "\u{1F}").utf8).write(to: URL(fileURLWithPath: file))
        #expect(entry.computedHash == (try Fixtures.sha256(of: file)))
    }

    @Test(
        "numbers are their decimal digits in the hashed text: zero, the largest, a negative pid",
        arguments: [
            (Int64(0), UInt32(0), Int32(-1), Int64(0)), (Int64.max, UInt32.max, Int32.max, Int64(1_000_000_007)),
        ])
    func hashNumbers(seq: Int64, uid: UInt32, pid: Int32, orderID: Int64) throws {
        let entry = AuditEntry(
            seq: seq, at: "2026-11-24T20:00:00.000Z", actor: ChangeActor(uid: uid, name: "root", pid: pid),
            action: "created", orderID: orderID, statusAfter: "open", reason: nil, before: nil, after: "{}",
            prevHash: AuditLogger.genesis, hash: "")
        let fields = [
            String(seq), entry.at, String(uid), "root", String(pid), "created", String(orderID), "open", "\u{0}",
            "\u{0}", "{}", AuditLogger.genesis,
        ]
        let directory = try TemporaryFolder("pizzad-test")
        let file = directory.path + "/fields"
        try Data(fields.joined(separator: "\u{1F}").utf8).write(to: URL(fileURLWithPath: file))
        #expect(entry.computedHash == (try Fixtures.sha256(of: file)))
    }

    @Test(
        "a change over the order API hashes its device and address after the previous hash; a missing one as U+0000",
        arguments: [("till-1", "192.0.2.7:53122"), ("till-1", nil), (nil, "[2001:db8::7]:443")] as [(String?, String?)])
    func hashDevice(device: String?, address: String?) throws {
        let actor = ChangeActor(uid: 110, name: "pizzad", pid: 77, device: device, address: address)
        let entry = AuditEntry(
            seq: 3, at: "2026-11-26T12:00:00.000Z", actor: actor, action: "created", orderID: 3, statusAfter: "open",
            reason: nil, before: nil, after: "{}", prevHash: AuditLogger.genesis, hash: "")
        let fields = [
            "3", entry.at, "110", "pizzad", "77", "created", "3", "open", "\u{0}", "\u{0}", "{}", AuditLogger.genesis,
            device ?? "\u{0}", address ?? "\u{0}",
        ]
        let directory = try TemporaryFolder("pizzad-test")
        let file = directory.path + "/fields"
        try Data(fields.joined(separator: "\u{1F}").utf8).write(to: URL(fileURLWithPath: file))
        #expect(entry.computedHash == (try Fixtures.sha256(of: file)))
        var without = entry
        without.actor = ChangeActor(uid: 110, name: "pizzad", pid: 77)
        #expect(without.computedHash != entry.computedHash, "the device is in the hash")
    }
}

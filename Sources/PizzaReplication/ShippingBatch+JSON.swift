import PizzaStorage
import PizzaWire

/// A batch of audit entries as `pizzad_ingest` reads it: a JSON array of
/// `{seq, at, actor: {uid, name, pid, device?, address?}, action, order, status, reason, before, after, prevHash, hash}`
/// (the device and address only for a change made over the order API; `order` and `status` null for an entry that
/// belongs to no order: an item's availability, a Z report).
///
/// `before` and `after` are the order as the shop's audit log holds it, already JSON: they are embedded as they
/// are, not escaped into strings and parsed twice (they are most of the bytes, and this runs for every entry).
extension ShippingBatch {
    static func encode(_ entries: [AuditEntry]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(entries.reduce(2) { $0 + $1.after.utf8.count + ($1.before?.utf8.count ?? 4) + 320 })
        func raw(_ text: String) { output.append(contentsOf: text.utf8) }
        func quoted(_ text: String) { JSONValue.string(text).write(into: &output) }
        raw("[")
        for (index, entry) in entries.enumerated() {
            raw(index == 0 ? #"{"seq":"# : #",{"seq":"#)
            raw(String(entry.seq))
            raw(#","at":"#)
            quoted(entry.at)
            raw(#","actor":{"uid":"#)
            raw(String(entry.actor.uid))
            raw(#","name":"#)
            quoted(entry.actor.name)
            raw(#","pid":"#)
            raw(String(entry.actor.pid))
            if let device = entry.actor.device {
                raw(#","device":"#)
                quoted(device)
            }
            if let address = entry.actor.address {
                raw(#","address":"#)
                quoted(address)
            }
            raw(#"},"action":"#)
            quoted(entry.action)
            raw(#","order":"#)
            raw(entry.orderID.map { String($0) } ?? "null")
            raw(#","status":"#)
            if let status = entry.statusAfter { quoted(status) } else { raw("null") }
            raw(#","reason":"#)
            if let reason = entry.reason { quoted(reason) } else { raw("null") }
            raw(#","before":"#)
            raw(entry.before ?? "null")
            raw(#","after":"#)
            raw(entry.after)
            raw(#","prevHash":"#)
            quoted(entry.prevHash)
            raw(#","hash":"#)
            quoted(entry.hash)
            raw("}")
        }
        raw("]")
        return String(decoding: output, as: UTF8.self)
    }
}

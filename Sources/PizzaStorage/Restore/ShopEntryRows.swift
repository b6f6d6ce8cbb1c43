import PizzaCore
import PizzaWire
import SQLite

/// An audit entry that belongs to no order but does not say what it records.
struct ShopEntryError: Error, CustomStringConvertible {
    var description: String
}

extension Database {
    /// The row an entry that belongs to no order made (an item's `availability`, a `z_reports` row), written again
    /// from the entry alone (a restore): the entry's text is the record, and a Z's `ref` is its reason.
    func restoreShopEntry(_ entry: AuditEntry) throws {
        guard let kind = ShopChange.Kind(rawValue: entry.action), entry.statusAfter == nil else {
            throw ShopEntryError(description: "it names no order, and \(entry.action) belongs to one")
        }
        guard let value = try? JSONParser.parse(entry.after) else {
            throw ShopEntryError(description: "its record is not JSON")
        }
        switch kind {
        case .availabilityChanged:
            guard let name = value["name"]?.stringValue, let available = value["available"]?.boolValue else {
                throw ShopEntryError(description: "its record names no item and availability")
            }
            try execute(
                literal: """
                    INSERT INTO availability (item, available, changed_at, seq) VALUES (?, ?, ?, ?)
                    ON CONFLICT (item) DO UPDATE SET available = excluded.available, changed_at = excluded.changed_at,
                                                     seq = excluded.seq
                    """, [name, available ? 1 : 0, entry.at, entry.seq])
        case .zReport:
            guard let report = try? JSONValueDecoder().decode(ZReport.self, from: value), report.lastSeq == entry.seq
            else { throw ShopEntryError(description: "its record is not this entry's Z report") }
            try execute(
                literal:
                    "INSERT INTO z_reports (number, at, first_seq, last_seq, ref, figures) VALUES (?, ?, ?, ?, ?, ?)",
                [report.number, report.at, report.firstSeq, report.lastSeq, entry.reason, entry.after])
        }
    }
}

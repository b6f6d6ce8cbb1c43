-- pizzad schema 8: what belongs to the shop rather than to an order (CONTRACT sections 17-18): the items taken off
-- the menu for now ("86"), and the day closed with Z reports. Each change to either is an audit entry with no
-- order (schema 7 made audit_log.order_id nullable for them), written in the same transaction as its row here.
-- Applied by pizzad in one transaction. Do not edit once released: add 0009_….sql instead.

-- One row per menu item (a kind, a product or an extra, by its menu name) whose availability was ever set;
-- available = 0 while it is off. seq is the audit entry that set it (written after the row, in the same
-- transaction: the reference is checked at the commit).
CREATE TABLE availability (
    item       TEXT PRIMARY KEY CHECK (length(item) BETWEEN 1 AND 64),
    available  INTEGER NOT NULL CHECK (available = 0 OR available = 1),
    changed_at TEXT NOT NULL,
    seq        INTEGER NOT NULL REFERENCES audit_log (seq) DEFERRABLE INITIALLY DEFERRED
) STRICT;

-- The Z reports, numbered 1, 2, … without a gap, never changed or deleted. A report covers the audit entries
-- first_seq..last_seq: those after the previous report's entry, up to its own (last_seq, the z_report entry, whose
-- `after` holds the same figures). figures is that JSON (CONTRACT section 18); ref is the operator's `report.z {ref}`,
-- so that a retry closes one period, not two.
CREATE TABLE z_reports (
    number    INTEGER PRIMARY KEY CHECK (number >= 1),
    at        TEXT NOT NULL,
    first_seq INTEGER NOT NULL CHECK (first_seq >= 1),
    last_seq  INTEGER NOT NULL UNIQUE REFERENCES audit_log (seq) DEFERRABLE INITIALLY DEFERRED,
    ref       TEXT UNIQUE CHECK (ref IS NULL OR length(ref) BETWEEN 1 AND 200),
    figures   TEXT NOT NULL,
    CHECK (first_seq <= last_seq)
) STRICT;
CREATE TRIGGER z_reports_no_update BEFORE UPDATE ON z_reports
BEGIN SELECT RAISE(ABORT, 'z_reports is append-only'); END;
CREATE TRIGGER z_reports_no_delete BEFORE DELETE ON z_reports
BEGIN SELECT RAISE(ABORT, 'z_reports is append-only'); END;

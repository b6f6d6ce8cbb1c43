-- pizzad schema 4: how far this shop's changes have been shipped to a central PostgreSQL (replication.postgres).
--
-- audit_log is the outbox: every change's complete entry is there, in sequence, from the transaction that made it.
-- The shipper reads entries after shipped_seq, commits them centrally, and only then records the new mark here,
-- so a crash between the two commits ships a batch twice, which the centre ignores (same (shop, seq), same hash).
-- shop_key tells this database apart from any other configured with the same replication.shopId: the centre
-- stores it on first contact and refuses a second database under that id. A backup restored here keeps the key
-- (it is the same shop); its reused sequence numbers are caught centrally by their hashes (diverged).
-- One row, written by pizzad only. Left alone (and harmless) when replication is off.
CREATE TABLE replication_state (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    shop_key     TEXT NOT NULL CHECK (length(shop_key) = 32),
    shipped_seq  INTEGER NOT NULL CHECK (shipped_seq >= 0),
    shipped_hash TEXT NOT NULL CHECK (length(shipped_hash) = 64),
    shipped_at   TEXT
) STRICT;
INSERT INTO replication_state (id, shop_key, shipped_seq, shipped_hash)
VALUES (1, lower(hex(randomblob(16))), 0, '0000000000000000000000000000000000000000000000000000000000000000');

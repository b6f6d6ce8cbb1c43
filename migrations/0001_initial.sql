-- pizzad schema 1: orders (carts), their pizzas, their status history, the audit log.
-- Applied by pizzad in one transaction and recorded in schema_migrations with this file's SHA-256.
-- Do not edit once released: add 0002_….sql instead (pizzad refuses to start when an applied file changes).

-- 'PIZD': marks the file as a pizzad database, so pizzad never migrates another program's file.
PRAGMA application_id = 1346984516;

CREATE TABLE schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    checksum   TEXT NOT NULL CHECK (length(checksum) = 64),
    applied_at TEXT NOT NULL
) STRICT;

CREATE TABLE carts (
    id         INTEGER PRIMARY KEY,
    ref        TEXT UNIQUE CHECK (ref IS NULL OR length(ref) BETWEEN 1 AND 200),
    customer   TEXT,
    note       TEXT,
    status     TEXT NOT NULL CHECK (status IN
                   ('open', 'placed', 'preparing', 'baking', 'boxed', 'shipped', 'delivered', 'cancelled')),
    currency   TEXT NOT NULL CHECK (length(currency) = 3),
    total      INTEGER NOT NULL CHECK (total >= 0),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
) STRICT;
-- order.list --status S (newest first) and the counts by status.
CREATE INDEX carts_by_status ON carts (status, id);
-- order.list --since T.
CREATE INDEX carts_by_created_at ON carts (created_at);

CREATE TABLE pizzas (
    id          INTEGER PRIMARY KEY,
    cart_id     INTEGER NOT NULL REFERENCES carts (id),
    kind        TEXT NOT NULL,
    size        TEXT NOT NULL CHECK (size IN ('S', 'M', 'L', 'XL')),
    crust       TEXT NOT NULL,
    chili_sauce INTEGER NOT NULL CHECK (chili_sauce IN (0, 1)),
    ketchup     INTEGER NOT NULL CHECK (ketchup IN (0, 1)),
    extras      TEXT NOT NULL DEFAULT '',
    quantity    INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 50),
    unit_price  INTEGER NOT NULL CHECK (unit_price >= 0)
) STRICT;
CREATE INDEX pizzas_by_cart ON pizzas (cart_id, id);

CREATE TABLE status_history (
    id          INTEGER PRIMARY KEY,
    cart_id     INTEGER NOT NULL REFERENCES carts (id),
    from_status TEXT CHECK (from_status IS NULL OR from_status IN
                    ('open', 'placed', 'preparing', 'baking', 'boxed', 'shipped', 'delivered', 'cancelled')),
    to_status   TEXT NOT NULL CHECK (to_status IN
                    ('open', 'placed', 'preparing', 'baking', 'boxed', 'shipped', 'delivered', 'cancelled')),
    at          TEXT NOT NULL,
    actor_uid   INTEGER NOT NULL,
    actor_name  TEXT NOT NULL,
    actor_pid   INTEGER NOT NULL,
    reason      TEXT
) STRICT;
CREATE INDEX status_history_by_cart ON status_history (cart_id, id);

-- Append-only and hash-chained: hash = SHA-256 over the entry's fields and prev_hash (see AuditLogger).
CREATE TABLE audit_log (
    seq          INTEGER PRIMARY KEY,
    at           TEXT NOT NULL,
    actor_uid    INTEGER NOT NULL,
    actor_name   TEXT NOT NULL,
    actor_pid    INTEGER NOT NULL,
    action       TEXT NOT NULL CHECK (action IN
                     ('created', 'item_added', 'item_removed', 'placed', 'advanced', 'cancelled')),
    order_id     INTEGER NOT NULL REFERENCES carts (id),
    status_after TEXT NOT NULL CHECK (status_after IN
                     ('open', 'placed', 'preparing', 'baking', 'boxed', 'shipped', 'delivered', 'cancelled')),
    reason       TEXT,
    before       TEXT,
    after        TEXT NOT NULL,
    prev_hash    TEXT NOT NULL CHECK (length(prev_hash) = 64),
    hash         TEXT NOT NULL CHECK (length(hash) = 64)
) STRICT;
CREATE INDEX audit_log_by_order ON audit_log (order_id, seq);

CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;

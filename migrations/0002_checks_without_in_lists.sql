-- pizzad schema 2: the same tables, with each CHECK that listed allowed values written as equalities joined by OR.
--
-- SQLite checks `x IN ('a', 'b', 'c')` (a constant list of more than two values) by building a temporary
-- b-tree of the list every time the INSERT or UPDATE runs: six of them for every new order, about a third of
-- what SQLite spent writing it. `x = 'a' OR x = 'b' OR x = 'c'` allows exactly the same values with plain
-- comparisons. The data, the rowids, the indexes and the triggers stay as they were.
--
-- SQLite cannot change a CHECK in place, so each table is rebuilt the documented way
-- (https://www.sqlite.org/lang_altertable.html#otheralter): new table, copy, drop the old one, rename.
-- The new tables point at carts_new until it is renamed to carts (SQLite rewrites their REFERENCES then), so
-- no foreign key ever points at a dropped table. Applied by pizzad in one transaction, like every migration;
-- it takes about as long as copying the database once.
-- Do not edit once released: add 0003_….sql instead.

CREATE TABLE carts_new (
    id         INTEGER PRIMARY KEY,
    ref        TEXT UNIQUE CHECK (ref IS NULL OR length(ref) BETWEEN 1 AND 200),
    customer   TEXT,
    note       TEXT,
    status     TEXT NOT NULL CHECK (status = 'open' OR status = 'placed' OR status = 'preparing' OR status = 'baking'
                   OR status = 'boxed' OR status = 'shipped' OR status = 'delivered' OR status = 'cancelled'),
    currency   TEXT NOT NULL CHECK (length(currency) = 3),
    total      INTEGER NOT NULL CHECK (total >= 0),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
) STRICT;
INSERT INTO carts_new (id, ref, customer, note, status, currency, total, created_at, updated_at)
SELECT id, ref, customer, note, status, currency, total, created_at, updated_at FROM carts;

CREATE TABLE pizzas_new (
    id          INTEGER PRIMARY KEY,
    cart_id     INTEGER NOT NULL REFERENCES carts_new (id),
    kind        TEXT NOT NULL,
    size        TEXT NOT NULL CHECK (size = 'S' OR size = 'M' OR size = 'L' OR size = 'XL'),
    crust       TEXT NOT NULL,
    chili_sauce INTEGER NOT NULL CHECK (chili_sauce IN (0, 1)),
    ketchup     INTEGER NOT NULL CHECK (ketchup IN (0, 1)),
    extras      TEXT NOT NULL DEFAULT '',
    quantity    INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 50),
    unit_price  INTEGER NOT NULL CHECK (unit_price >= 0)
) STRICT;
INSERT INTO pizzas_new (id, cart_id, kind, size, crust, chili_sauce, ketchup, extras, quantity, unit_price)
SELECT id, cart_id, kind, size, crust, chili_sauce, ketchup, extras, quantity, unit_price FROM pizzas;

CREATE TABLE status_history_new (
    id          INTEGER PRIMARY KEY,
    cart_id     INTEGER NOT NULL REFERENCES carts_new (id),
    from_status TEXT CHECK (from_status IS NULL OR from_status = 'open' OR from_status = 'placed'
                    OR from_status = 'preparing' OR from_status = 'baking' OR from_status = 'boxed'
                    OR from_status = 'shipped' OR from_status = 'delivered' OR from_status = 'cancelled'),
    to_status   TEXT NOT NULL CHECK (to_status = 'open' OR to_status = 'placed' OR to_status = 'preparing'
                    OR to_status = 'baking' OR to_status = 'boxed' OR to_status = 'shipped'
                    OR to_status = 'delivered' OR to_status = 'cancelled'),
    at          TEXT NOT NULL,
    actor_uid   INTEGER NOT NULL,
    actor_name  TEXT NOT NULL,
    actor_pid   INTEGER NOT NULL,
    reason      TEXT
) STRICT;
INSERT INTO status_history_new (id, cart_id, from_status, to_status, at, actor_uid, actor_name, actor_pid, reason)
SELECT id, cart_id, from_status, to_status, at, actor_uid, actor_name, actor_pid, reason FROM status_history;

CREATE TABLE audit_log_new (
    seq          INTEGER PRIMARY KEY,
    at           TEXT NOT NULL,
    actor_uid    INTEGER NOT NULL,
    actor_name   TEXT NOT NULL,
    actor_pid    INTEGER NOT NULL,
    action       TEXT NOT NULL CHECK (action = 'created' OR action = 'item_added' OR action = 'item_removed'
                     OR action = 'placed' OR action = 'advanced' OR action = 'cancelled'),
    order_id     INTEGER NOT NULL REFERENCES carts_new (id),
    status_after TEXT NOT NULL CHECK (status_after = 'open' OR status_after = 'placed'
                     OR status_after = 'preparing' OR status_after = 'baking' OR status_after = 'boxed'
                     OR status_after = 'shipped' OR status_after = 'delivered' OR status_after = 'cancelled'),
    reason       TEXT,
    before       TEXT,
    after        TEXT NOT NULL,
    prev_hash    TEXT NOT NULL CHECK (length(prev_hash) = 64),
    hash         TEXT NOT NULL CHECK (length(hash) = 64)
) STRICT;
INSERT INTO audit_log_new (seq, at, actor_uid, actor_name, actor_pid, action, order_id, status_after, reason, before,
                           after, prev_hash, hash)
SELECT seq, at, actor_uid, actor_name, actor_pid, action, order_id, status_after, reason, before, after, prev_hash,
       hash FROM audit_log;

-- Children first, so no table that is dropped is still referenced. DROP TABLE fires no triggers.
DROP TABLE audit_log;
DROP TABLE status_history;
DROP TABLE pizzas;
DROP TABLE carts;

ALTER TABLE carts_new RENAME TO carts;
ALTER TABLE pizzas_new RENAME TO pizzas;
ALTER TABLE status_history_new RENAME TO status_history;
ALTER TABLE audit_log_new RENAME TO audit_log;

-- The indexes and triggers went with the old tables; the same ones again.
-- order.list --status S (newest first) and the counts by status.
CREATE INDEX carts_by_status ON carts (status, id);
-- order.list --since T.
CREATE INDEX carts_by_created_at ON carts (created_at);
CREATE INDEX pizzas_by_cart ON pizzas (cart_id, id);
CREATE INDEX status_history_by_cart ON status_history (cart_id, id);
CREATE INDEX audit_log_by_order ON audit_log (order_id, seq);

CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;

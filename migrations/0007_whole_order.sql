-- pizzad schema 7: a shop's whole order (CONTRACT section 17): products beside pizzas, item notes, VAT rates kept on
-- every line, fulfilment (pickup, delivery, dine-in) with a due time, discounts, fees, payments and refunds.
--
-- Every order written before reads as it did: a pickup as soon as possible, no products, discounts, fees or
-- payments, each pizza at the rate `none` (0 basis points). Its subtotal is its old total; a cancelled order's total
-- is 0 (section 17). The audit log is rebuilt (SQLite cannot change a CHECK in place) to take the new kinds of
-- change, and entries that belong to no order (availability, Z reports: order_id and status_after NULL); every
-- entry is copied as it is, so every hash still verifies. Applied by pizzad in one transaction.
-- Do not edit once released: add 0008_….sql instead.

ALTER TABLE pizzas ADD COLUMN tax TEXT NOT NULL DEFAULT 'none' CHECK (length(tax) BETWEEN 1 AND 64);
ALTER TABLE pizzas ADD COLUMN tax_bp INTEGER NOT NULL DEFAULT 0 CHECK (tax_bp BETWEEN 0 AND 10000);
ALTER TABLE pizzas ADD COLUMN note TEXT CHECK (note IS NULL OR length(CAST(note AS BLOB)) BETWEEN 1 AND 200);

-- fulfilment: how the order leaves the shop; the address and phone a delivery needs, the table a dine-in needs;
-- due_at: when the customer wants it (NULL: as soon as possible).
ALTER TABLE carts ADD COLUMN fulfilment TEXT NOT NULL DEFAULT 'pickup'
    CHECK (fulfilment = 'pickup' OR fulfilment = 'delivery' OR fulfilment = 'dinein');
ALTER TABLE carts ADD COLUMN phone TEXT;
ALTER TABLE carts ADD COLUMN street TEXT;
ALTER TABLE carts ADD COLUMN postcode TEXT;
ALTER TABLE carts ADD COLUMN city TEXT;
ALTER TABLE carts ADD COLUMN address_notes TEXT;
ALTER TABLE carts ADD COLUMN dine_table TEXT;
ALTER TABLE carts ADD COLUMN due_at TEXT;
-- The order's figures as pizzad computed them at its last change (cents): the items' sum, and what was paid less
-- refunds. total (kept) is subtotal - discounts + fees, 0 once cancelled.
ALTER TABLE carts ADD COLUMN subtotal INTEGER NOT NULL DEFAULT 0 CHECK (subtotal >= 0);
ALTER TABLE carts ADD COLUMN paid INTEGER NOT NULL DEFAULT 0;
-- Which of the order's other tables hold rows for it, so that reading a pizza-only order asks none of them:
-- 1 order_items, 2 discounts, 4 fees, 8 payments.
ALTER TABLE carts ADD COLUMN parts INTEGER NOT NULL DEFAULT 0 CHECK (parts BETWEEN 0 AND 15);
UPDATE carts SET subtotal = total;
UPDATE carts SET total = 0 WHERE status = 'cancelled';
-- order.list --sort due: by when each order is wanted (an order for as soon as possible by when it was made).
CREATE INDEX carts_by_due ON carts (coalesce(due_at, created_at), id);

-- Product lines (drinks, sides, desserts): their ids come from the same numbers as the pizzas'.
CREATE TABLE order_items (
    id          INTEGER PRIMARY KEY,
    cart_id     INTEGER NOT NULL REFERENCES carts (id),
    product     TEXT NOT NULL CHECK (length(product) BETWEEN 1 AND 64),
    name        TEXT NOT NULL,
    category    TEXT NOT NULL,
    quantity    INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 100),
    options     TEXT NOT NULL DEFAULT '',
    unit_price  INTEGER NOT NULL CHECK (unit_price >= 0),
    tax         TEXT NOT NULL CHECK (length(tax) BETWEEN 1 AND 64),
    tax_bp      INTEGER NOT NULL CHECK (tax_bp BETWEEN 0 AND 10000),
    note        TEXT CHECK (note IS NULL OR length(CAST(note AS BLOB)) BETWEEN 1 AND 200)
) STRICT;
CREATE INDEX order_items_by_cart ON order_items (cart_id, id);

-- Discounts on an order (item_id NULL) or one of its items; percent is what was asked, amount what it took off.
CREATE TABLE discounts (
    id            INTEGER PRIMARY KEY,
    cart_id       INTEGER NOT NULL REFERENCES carts (id),
    amount        INTEGER NOT NULL CHECK (amount >= 1),
    percent       INTEGER CHECK (percent IS NULL OR percent BETWEEN 1 AND 100),
    item_id       INTEGER,
    reason        TEXT NOT NULL,
    at            TEXT NOT NULL,
    actor_uid     INTEGER NOT NULL,
    actor_name    TEXT NOT NULL,
    actor_pid     INTEGER NOT NULL,
    actor_device  TEXT,
    actor_address TEXT
) STRICT;
CREATE INDEX discounts_by_cart ON discounts (cart_id, id);

-- Fees (a delivery's), at their VAT rate.
CREATE TABLE fees (
    id       INTEGER PRIMARY KEY,
    cart_id  INTEGER NOT NULL REFERENCES carts (id),
    kind     TEXT NOT NULL CHECK (length(kind) BETWEEN 1 AND 32),
    amount   INTEGER NOT NULL CHECK (amount >= 0),
    tax      TEXT NOT NULL CHECK (length(tax) BETWEEN 1 AND 64),
    tax_bp   INTEGER NOT NULL CHECK (tax_bp BETWEEN 0 AND 10000)
) STRICT;
CREATE INDEX fees_by_cart ON fees (cart_id, id);

-- Payments (amount > 0) and refunds (amount < 0, refunds naming the payment); a ref is unique in its order.
CREATE TABLE payments (
    id            INTEGER PRIMARY KEY,
    cart_id       INTEGER NOT NULL REFERENCES carts (id),
    tender        TEXT NOT NULL CHECK (tender = 'cash' OR tender = 'card' OR tender = 'online'
                      OR tender = 'platform' OR tender = 'voucher'),
    amount        INTEGER NOT NULL CHECK (amount <> 0),
    at            TEXT NOT NULL,
    ref           TEXT CHECK (ref IS NULL OR length(ref) BETWEEN 1 AND 200),
    refunds       INTEGER REFERENCES payments (id),
    reason        TEXT,
    actor_uid     INTEGER NOT NULL,
    actor_name    TEXT NOT NULL,
    actor_pid     INTEGER NOT NULL,
    actor_device  TEXT,
    actor_address TEXT,
    CHECK ((amount > 0) = (refunds IS NULL)),
    UNIQUE (cart_id, ref)
) STRICT;

CREATE TABLE audit_log_new (
    seq           INTEGER PRIMARY KEY,
    at            TEXT NOT NULL,
    actor_uid     INTEGER NOT NULL,
    actor_name    TEXT NOT NULL,
    actor_pid     INTEGER NOT NULL,
    action        TEXT NOT NULL CHECK (action = 'created' OR action = 'item_added' OR action = 'item_removed'
                      OR action = 'placed' OR action = 'advanced' OR action = 'cancelled'
                      OR action = 'fulfilment_changed' OR action = 'discounted' OR action = 'paid'
                      OR action = 'refunded' OR action = 'availability_changed' OR action = 'z_report'),
    order_id      INTEGER REFERENCES carts (id),
    status_after  TEXT CHECK (status_after IS NULL OR status_after = 'open' OR status_after = 'placed'
                      OR status_after = 'preparing' OR status_after = 'baking' OR status_after = 'boxed'
                      OR status_after = 'shipped' OR status_after = 'delivered' OR status_after = 'cancelled'),
    reason        TEXT,
    before        TEXT,
    after         TEXT NOT NULL,
    prev_hash     TEXT NOT NULL CHECK (length(prev_hash) = 64),
    hash          TEXT NOT NULL CHECK (length(hash) = 64),
    actor_device  TEXT CHECK (actor_device IS NULL OR length(actor_device) BETWEEN 1 AND 64),
    actor_address TEXT CHECK (actor_address IS NULL OR length(actor_address) <= 64),
    CHECK ((order_id IS NULL) = (status_after IS NULL))
) STRICT;
INSERT INTO audit_log_new (seq, at, actor_uid, actor_name, actor_pid, action, order_id, status_after, reason, before,
                           after, prev_hash, hash, actor_device, actor_address)
SELECT seq, at, actor_uid, actor_name, actor_pid, action, order_id, status_after, reason, before, after, prev_hash,
       hash, actor_device, actor_address FROM audit_log;
-- api_requests points at audit_log by name: with the new table renamed to it, the reference holds again (pizzad
-- migrates before it turns foreign keys on). DROP TABLE fires no triggers.
DROP TABLE audit_log;
ALTER TABLE audit_log_new RENAME TO audit_log;
CREATE INDEX audit_log_by_order ON audit_log (order_id, seq);
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;

-- The `manager` device role (CONTRACT sections 17-18: discounts, refunds, availability, reports).
CREATE TABLE api_devices_new (
    name           TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
    role           TEXT NOT NULL CHECK (role = 'till' OR role = 'kitchen' OR role = 'reader' OR role = 'platform'
                       OR role = 'manager'),
    token_sha256   TEXT UNIQUE CHECK (token_sha256 IS NULL OR length(token_sha256) = 64),
    signing_secret TEXT,
    created_at     TEXT NOT NULL,
    revoked_at     TEXT,
    last_seen_at   TEXT,
    last_address   TEXT,
    CHECK ((token_sha256 IS NULL) <> (signing_secret IS NULL))
) STRICT;
INSERT INTO api_devices_new SELECT name, role, token_sha256, signing_secret, created_at, revoked_at, last_seen_at,
                                   last_address FROM api_devices;
DROP TABLE api_devices;
ALTER TABLE api_devices_new RENAME TO api_devices;

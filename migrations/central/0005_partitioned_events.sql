-- Central schema 5: order_events partitioned by hash of the shop, and covering indexes for head office.
--
-- A chain's centre only grows: every change of every shop, kept. One table of a hundred million rows has one
-- primary-key index of a few gigabytes that every ingest descends and every vacuum reads whole. Partitioned by
-- HASH (shop_id) into 16 tables, a shop's ingest, cursor and history touch one partition (pruned at planning or
-- at execution), and each partition is vacuumed and indexed on its own.
--
-- Why by shop and not by month (pg_partman): ingest is idempotent because (shop_id, seq) is unique, and in
-- PostgreSQL a unique index on a partitioned table must contain the partition key. Partitioned by month of `at`,
-- the key would have to be (shop_id, seq, at), and a resent entry with another time would be a second row: the
-- exactly-once guarantee would rest on the ingest function's checks alone. By hash of the shop the key stays
-- (shop_id, seq), enforced by PostgreSQL, with no partition to create ahead of time and no extension to install.
-- What a month partition gives (dropping old months) is not something a shop's audit history may lose.
--
-- Head office reads `orders` by time (orders per hour, revenue today) and by waiting status: covering indexes make
-- those index-only scans however many orders the chain holds (docs/OPERATIONS.md, "Head-office queries").
--
-- Applied in one transaction: the tables are locked first (order_events, then orders: the order ingest takes
-- them in), so a shop's ingest waits behind the migration or times out and retries; shops back up in their own
-- audit_log and catch up when it commits. It copies every row once: about 5 s per million events (645 MB) on a small
-- server (docs/PERFORMANCE.md, "A chain of shops").

LOCK TABLE order_events, orders IN ACCESS EXCLUSIVE MODE;

ALTER TABLE order_events RENAME TO order_events_unpartitioned;
ALTER INDEX order_events_pkey RENAME TO order_events_unpartitioned_pkey;
ALTER INDEX order_events_by_order RENAME TO order_events_unpartitioned_by_order;
ALTER INDEX order_events_by_time RENAME TO order_events_unpartitioned_by_time;

CREATE TABLE order_events (
    shop_id      text NOT NULL,
    seq          bigint NOT NULL CHECK (seq > 0),
    order_id     bigint NOT NULL,
    action       text NOT NULL,
    status_after text NOT NULL,
    at           timestamptz NOT NULL,
    actor_uid    bigint NOT NULL,
    actor_name   text NOT NULL,
    actor_pid    integer NOT NULL,
    reason       text,
    before       jsonb,
    after        jsonb NOT NULL,
    prev_hash    text NOT NULL CHECK (length(prev_hash) = 64),
    hash         text NOT NULL CHECK (length(hash) = 64),
    received_at  timestamptz NOT NULL DEFAULT clock_timestamp()
) PARTITION BY HASH (shop_id);

DO $partitions$
BEGIN
    FOR n IN 0..15 LOOP
        EXECUTE format('CREATE TABLE order_events_p%s PARTITION OF order_events FOR VALUES WITH (MODULUS 16, REMAINDER %s)',
                       lpad(n::text, 2, '0'), n);
    END LOOP;
END
$partitions$;

INSERT INTO order_events SELECT * FROM order_events_unpartitioned;
DROP TABLE order_events_unpartitioned;

-- Built after the copy (one sort each, instead of an index insert per row).
ALTER TABLE order_events ADD PRIMARY KEY (shop_id, seq);
CREATE INDEX order_events_by_order ON order_events (shop_id, order_id, seq);
CREATE INDEX order_events_by_time ON order_events (at);

-- Orders per shop per hour and revenue today: the day's orders by creation time, every column those queries read.
DROP INDEX orders_by_created_at;
CREATE INDEX orders_by_created_at ON orders (created_at) INCLUDE (shop_id, status, currency, total);
-- Late orders: only the orders still in the kitchen or on the road, by status and the time they got there.
CREATE INDEX orders_waiting ON orders (status, updated_at) INCLUDE (shop_id, order_id, customer)
    WHERE status IN ('placed', 'preparing', 'baking', 'boxed', 'shipped');
DROP INDEX orders_by_status;

REVOKE ALL ON order_events FROM PUBLIC;
ANALYZE order_events;

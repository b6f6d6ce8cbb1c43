-- pizzad central schema 1, for PostgreSQL: every shop's changes in one place (replication.postgres).
--
-- Applied by the shipper (pizzad's Replicator, or `pizzad --migrate-central`) in one transaction under an advisory
-- lock, and recorded in pizzad_central_migrations with this file's SHA-256. Do not edit once released: add
-- 0002_….sql instead.
--
-- Shops never touch the tables. Each shop's own role (a member of pizzad_shop) may only execute the functions
-- below, which run as the schema's owner: pizzad_ingest checks every batch against the shop's cursor, so a
-- shop cannot skip, reorder, rewrite or forge another shop's history.

DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'pizzad_shop') THEN
        CREATE ROLE pizzad_shop NOLOGIN;
    END IF;
END
$$;

-- One row per shop: its key (which pizzad database speaks for it), the role it ships with, and its cursor, the
-- last sequence number received in order with that entry's hash.
CREATE TABLE shops (
    shop_id        text PRIMARY KEY CHECK (shop_id ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
    shop_key       text NOT NULL CHECK (length(shop_key) = 32),
    role_name      text NOT NULL,
    cursor_seq     bigint NOT NULL DEFAULT 0 CHECK (cursor_seq >= 0),
    cursor_hash    text NOT NULL CHECK (length(cursor_hash) = 64),
    registered_at  timestamptz NOT NULL DEFAULT now(),
    last_ingest_at timestamptz
);

-- Every change of every shop: one row per audit entry, as the shop's audit_log holds it.
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
    received_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (shop_id, seq)
);
CREATE INDEX order_events_by_order ON order_events (shop_id, order_id, seq);
CREATE INDEX order_events_by_time ON order_events (at);

-- Each order's latest state: replaced only by a change with a higher sequence number.
CREATE TABLE orders (
    shop_id    text NOT NULL,
    order_id   bigint NOT NULL,
    ref        text,
    customer   text,
    note       text,
    status     text NOT NULL,
    currency   text NOT NULL,
    total      bigint NOT NULL,
    items      jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    last_seq   bigint NOT NULL,
    PRIMARY KEY (shop_id, order_id)
);
CREATE INDEX orders_by_status ON orders (status, updated_at);
CREATE INDEX orders_by_created_at ON orders (created_at);

-- pizzad_ingest(shop, key, events): one batch, one transaction. events is a JSON array of audit entries, in
-- sequence: {seq, at, actor: {uid, name, pid}, action, order, status, reason, before, after, prevHash, hash}, before and
-- after being the order as JSON (before null for a creation), as the shop's audit_log holds them.
-- Answers {"cursor": N, "hash": H}: the shop's cursor after the batch. A batch that starts after cursor + 1 writes
-- nothing and answers the cursor, so the shipper rewinds (a central failover lost batches) and re-sends.
-- Raises (nothing written):
--   PZ001 diverged        an entry at an existing sequence number with another hash, or a broken chain
--   PZ002 shop collision  the shop id is registered by another database (another shop key)
--   PZ003 wrong role      the shop id is registered to another PostgreSQL role
--   PZ004 bad batch       a gap or a malformed entry inside the batch
-- An audit entry as a shop sends it (before and after: the order as JSON, null before for a creation).
CREATE TYPE pizzad_entry AS (
    seq bigint, at timestamptz, actor jsonb, action text, "order" bigint, status text, reason text,
    before jsonb, after jsonb, "prevHash" text, hash text
);

CREATE FUNCTION pizzad_ingest(p_shop text, p_key text, p_events jsonb) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_shop     shops%ROWTYPE;
    v_first    bigint;
    v_count    integer;
    v_previous text;
    v_bad      record;
    v_last     record;
    v_batch    pizzad_entry[];
BEGIN
    IF p_shop IS NULL OR p_shop !~ '^[a-z0-9][a-z0-9_-]{0,62}$' THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ004', MESSAGE = format('bad shop id %L', p_shop);
    END IF;
    IF jsonb_typeof(p_events) IS DISTINCT FROM 'array' THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ004', MESSAGE = 'events must be a JSON array';
    END IF;
    INSERT INTO shops (shop_id, shop_key, role_name, cursor_hash)
    VALUES (p_shop, p_key, session_user, repeat('0', 64))
    ON CONFLICT (shop_id) DO NOTHING;
    SELECT * INTO v_shop FROM shops WHERE shop_id = p_shop FOR UPDATE;
    IF v_shop.shop_key <> p_key THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ002',
            MESSAGE = format('shop id %s is taken by another pizzad database (registered %s)', p_shop,
                             v_shop.registered_at),
            HINT = 'give each shop its own replication.shopId';
    END IF;
    IF v_shop.role_name <> session_user THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ003',
            MESSAGE = format('shop id %s ships as role %s, not %s', p_shop, v_shop.role_name, session_user);
    END IF;
    v_count := jsonb_array_length(p_events);
    IF v_count = 0 THEN
        RETURN jsonb_build_object('cursor', v_shop.cursor_seq, 'hash', v_shop.cursor_hash);
    END IF;

    -- The batch, parsed once, set-based from here on (a row at a time costs several times more per entry).
    SELECT array_agg(e ORDER BY e.seq) INTO v_batch FROM jsonb_populate_recordset(NULL::pizzad_entry, p_events) e;

    SELECT min(seq) INTO v_first FROM unnest(v_batch);
    IF v_first IS NULL OR v_first < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ004', MESSAGE = 'an entry has no sequence number';
    END IF;
    IF v_first > v_shop.cursor_seq + 1 THEN
        RETURN jsonb_build_object('cursor', v_shop.cursor_seq, 'hash', v_shop.cursor_hash, 'rewind', true);
    END IF;
    IF (SELECT count(DISTINCT seq) <> v_count OR max(seq) <> v_first + v_count - 1 FROM unnest(v_batch)) THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ004', MESSAGE = format('the batch from entry %s has a gap or a repeat', v_first);
    END IF;
    IF EXISTS (SELECT FROM unnest(v_batch) WHERE hash IS NULL OR length(hash) <> 64 OR "prevHash" IS NULL
               OR after IS NULL OR "order" IS NULL OR at IS NULL OR action IS NULL OR status IS NULL) THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ004', MESSAGE = format('the batch from entry %s has a malformed entry', v_first);
    END IF;

    -- The entry right after the cursor must link to the entry at the cursor (the cursor row's own hash when that
    -- entry is not here).
    SELECT hash INTO v_previous FROM order_events WHERE shop_id = p_shop AND seq = v_shop.cursor_seq;
    v_previous := coalesce(v_previous, v_shop.cursor_hash);
    IF EXISTS (SELECT FROM unnest(v_batch) WHERE seq = v_shop.cursor_seq + 1 AND "prevHash" <> v_previous) THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ001',
            MESSAGE = format('diverged: entry %s of shop %s does not link to the entry %s received before',
                             v_shop.cursor_seq + 1, p_shop, v_shop.cursor_seq),
            HINT = 'the shop''s database was replaced by an older copy; see the README, "Replication"';
    END IF;
    -- An entry already here must be the same entry: a resent batch is fine, a rewritten history is not. The range
    -- on seq keeps this to a primary-key range scan of the batch's own entries, however the planner guesses the
    -- size of unnest() and of order_events (a join on seq alone was planned as a scan of the shop's whole history).
    SELECT b.seq, b.hash AS sent, e.hash AS held INTO v_bad
    FROM unnest(v_batch) b
    JOIN order_events e ON e.shop_id = p_shop AND e.seq = b.seq AND e.seq BETWEEN v_first AND v_first + v_count - 1
    WHERE e.hash <> b.hash ORDER BY b.seq LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ001',
            MESSAGE = format('diverged: shop %s sent entry %s with hash %s, but entry %s here has hash %s',
                             p_shop, v_bad.seq, left(v_bad.sent, 12), v_bad.seq, left(v_bad.held, 12)),
            HINT = 'the shop''s database was replaced by an older copy; see the README, "Replication"';
    END IF;

    INSERT INTO order_events (shop_id, seq, order_id, action, status_after, at, actor_uid, actor_name, actor_pid,
                              reason, before, after, prev_hash, hash)
    SELECT p_shop, seq, "order", action, status, at, (actor ->> 'uid')::bigint, actor ->> 'name',
           (actor ->> 'pid')::integer, reason, before, after, "prevHash", hash
    FROM unnest(v_batch) ORDER BY seq
    ON CONFLICT (shop_id, seq) DO NOTHING;

    -- Each order's latest state in the batch; an order's row only moves forward (last_seq), so a resent or
    -- rewound batch cannot put an older state over a newer one.
    INSERT INTO orders AS o (shop_id, order_id, ref, customer, note, status, currency, total, items,
                             created_at, updated_at, last_seq)
    SELECT p_shop, latest."order", a ->> 'ref', a ->> 'customer', a ->> 'note', a ->> 'status', a ->> 'currency',
           (SELECT coalesce(sum((i -> 'pizza' ->> 'unitPrice')::bigint * (i -> 'pizza' ->> 'quantity')::bigint), 0)
            FROM jsonb_array_elements(a -> 'items') AS i),
           a -> 'items', (a ->> 'createdAt')::timestamptz, (a ->> 'updatedAt')::timestamptz, latest.seq
    FROM (SELECT DISTINCT ON ("order") "order", seq, after AS a FROM unnest(v_batch) ORDER BY "order", seq DESC) latest
    ON CONFLICT (shop_id, order_id) DO UPDATE
        SET ref = EXCLUDED.ref, customer = EXCLUDED.customer, note = EXCLUDED.note, status = EXCLUDED.status,
            currency = EXCLUDED.currency, total = EXCLUDED.total, items = EXCLUDED.items,
            created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at, last_seq = EXCLUDED.last_seq
        WHERE o.last_seq < EXCLUDED.last_seq;

    SELECT seq, hash INTO v_last FROM unnest(v_batch) ORDER BY seq DESC LIMIT 1;
    IF v_last.seq > v_shop.cursor_seq THEN
        UPDATE shops SET cursor_seq = v_last.seq, cursor_hash = v_last.hash, last_ingest_at = now()
        WHERE shop_id = p_shop;
        RETURN jsonb_build_object('cursor', v_last.seq, 'hash', v_last.hash);
    END IF;
    UPDATE shops SET last_ingest_at = now() WHERE shop_id = p_shop;
    RETURN jsonb_build_object('cursor', v_shop.cursor_seq, 'hash', v_shop.cursor_hash);
END
$$;

-- pizzad_cursor(shop, key): the shop's cursor, its hash, and how many of its entries are here (equal to the
-- cursor when nothing is missing), for `pizzactl replication verify`. NULL cursor: the shop is not registered.
CREATE FUNCTION pizzad_cursor(p_shop text, p_key text) RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_shop shops%ROWTYPE;
BEGIN
    SELECT * INTO v_shop FROM shops WHERE shop_id = p_shop;
    IF NOT FOUND THEN
        RETURN jsonb_build_object('cursor', NULL);
    END IF;
    IF v_shop.shop_key <> p_key THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ002',
            MESSAGE = format('shop id %s is taken by another pizzad database', p_shop);
    END IF;
    RETURN jsonb_build_object(
        'cursor', v_shop.cursor_seq, 'hash', v_shop.cursor_hash,
        'events', (SELECT count(*) FROM order_events WHERE shop_id = p_shop AND seq <= v_shop.cursor_seq),
        'orders', (SELECT count(*) FROM orders WHERE shop_id = p_shop));
END
$$;

REVOKE ALL ON shops, order_events, orders FROM PUBLIC;
-- The migrations table is created by the shipper just before this file runs; shops read it to check the version.
GRANT SELECT ON pizzad_central_migrations TO pizzad_shop;
REVOKE ALL ON FUNCTION pizzad_ingest(text, text, jsonb), pizzad_cursor(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pizzad_ingest(text, text, jsonb), pizzad_cursor(text, text) TO pizzad_shop;

-- Central schema 9: a shop's whole order (CONTRACT section 17) in the centre's orders, the entries that belong to no
-- order, and every shop's Z reports (section 18).
--
-- A shop of schema 7 ships each order with its fulfilment, its discounts, fees and payments, and its figures
-- (subtotal, total, taxes per rate, paid, balance), all in the entry's `after`, as ever. The centre keeps them in
-- columns of `orders` beside the items, so that head office reads a day's VAT or what is owed with SQL; an order from
-- an older shop (no such members) arrives as a pickup with no payments, its subtotal and balance its total. The
-- entries themselves (order_events) are unchanged. The columns are added with constant defaults, which PostgreSQL
-- writes into no row: a chain's centre is not rewritten under the migration's lock. An order shipped before this
-- migration has subtotal and balance NULL (not known here) until its next change arrives.
-- Locked first, in the order the ingest takes them (after its shop's row), so that a shop's ingest waits behind the
-- migration (or times out and retries) instead of deadlocking with it; nothing here touches `shops`.
LOCK TABLE order_events, orders IN ACCESS EXCLUSIVE MODE;

ALTER TABLE orders
    ADD COLUMN subtotal bigint, ADD COLUMN paid bigint NOT NULL DEFAULT 0, ADD COLUMN balance bigint,
    ADD COLUMN fulfilment jsonb NOT NULL DEFAULT '{"type": "pickup"}', ADD COLUMN discounts jsonb NOT NULL DEFAULT '[]',
    ADD COLUMN fees jsonb NOT NULL DEFAULT '[]', ADD COLUMN taxes jsonb NOT NULL DEFAULT '[]',
    ADD COLUMN payments jsonb NOT NULL DEFAULT '[]';
-- Head office's "what is still owed": orders with a balance, by shop.
CREATE INDEX orders_owed ON orders (shop_id, order_id) WHERE balance <> 0;

-- Entries that belong to no order (CONTRACT sections 17-18: an item's availability, a Z report) arrive with
-- "order" and status null; they are kept in order_events like every entry (the chain covers them), and change no
-- order. Dropping NOT NULL only changes the catalogue.
ALTER TABLE order_events ALTER COLUMN order_id DROP NOT NULL, ALTER COLUMN status_after DROP NOT NULL;

-- Every shop's Z reports, as their entries carry them: head office sees each shop's days (shop_days).
CREATE TABLE z_reports (
    -- No reference to shops: creating one would lock shops, which every ingest updates (the ingest writes rows
    -- only for its own shop, after checking it).
    shop_id   text NOT NULL,
    number    bigint NOT NULL CHECK (number >= 1),
    at        timestamptz NOT NULL,
    first_seq bigint NOT NULL,
    last_seq  bigint NOT NULL,
    figures   jsonb NOT NULL,
    PRIMARY KEY (shop_id, number)
);
REVOKE ALL ON z_reports FROM PUBLIC;
-- A day per shop and Z: orders placed and cancelled, gross, VAT, what came in, what is owed (cents).
CREATE VIEW shop_days AS
SELECT z.shop_id, z.number, z.at, z.first_seq, z.last_seq,
       (z.figures -> 'placed' ->> 'count')::bigint AS placed,
       (z.figures -> 'cancelled' ->> 'count')::bigint AS cancelled,
       (SELECT coalesce(sum((t ->> 'gross')::bigint), 0) FROM jsonb_array_elements(z.figures -> 'taxes') t) AS gross,
       (SELECT coalesce(sum((t ->> 'tax')::bigint), 0) FROM jsonb_array_elements(z.figures -> 'taxes') t) AS tax,
       (SELECT coalesce(sum((t ->> 'payments')::bigint - (t ->> 'refunds')::bigint), 0)
        FROM jsonb_array_elements(z.figures -> 'tenders') t) AS taken,
       (z.figures ->> 'openBalance')::bigint AS open_balance,
       z.figures
FROM z_reports z;
REVOKE ALL ON shop_days FROM PUBLIC;

CREATE OR REPLACE FUNCTION pizzad_ingest(p_shop text, p_key text, p_events jsonb, p_role text) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $$
DECLARE
    v_shop      shops%ROWTYPE;
    v_count     integer;
    v_bad       record;
    v_batch     pizzad_entry[];
    v_pooled    boolean;
    v_role      text;
    v_first     bigint;
    v_last      bigint;
    v_distinct  bigint;
    v_malformed boolean;
    v_links     boolean;
    v_previous  text;
    v_last_hash text;
BEGIN
    IF p_shop IS NULL OR p_shop !~ '^[a-z0-9][a-z0-9_-]{0,62}$' THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ004', MESSAGE = format('bad shop id %L', p_shop);
    END IF;
    IF jsonb_typeof(p_events) IS DISTINCT FROM 'array' THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ004', MESSAGE = 'events must be a JSON array';
    END IF;
    -- Whether this session logged in as a pooled role (as pizzad_pooled_session(), inline).
    v_pooled := EXISTS (SELECT FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
                        JOIN pg_roles u ON u.oid = m.member
                        WHERE g.rolname = 'pizzad_pooled' AND u.rolname = session_user);
    -- Who ships: the session's role, or in a pooled session the role the shop names (its own, which it restores
    -- with); the shop key, checked below before anything else, is then what proves it.
    v_role := CASE WHEN v_pooled THEN p_role ELSE session_user END;
    IF v_role IS NULL OR NOT EXISTS (SELECT FROM pg_roles WHERE rolname = v_role) THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ004', MESSAGE = format('no role %L to ship as', v_role);
    END IF;
    SELECT * INTO v_shop FROM shops WHERE shop_id = p_shop FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO shops (shop_id, shop_key, role_name, cursor_hash)
        VALUES (p_shop, p_key, v_role, repeat('0', 64))
        ON CONFLICT (shop_id) DO NOTHING;
        SELECT * INTO v_shop FROM shops WHERE shop_id = p_shop FOR UPDATE;
    END IF;
    IF v_shop.shop_key <> p_key THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ002',
            MESSAGE = format('shop id %s is taken by another pizzad database (registered %s)', p_shop,
                             v_shop.registered_at),
            HINT = 'give each shop its own replication.shopId';
    END IF;
    IF v_shop.role_name <> v_role THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ003',
            MESSAGE = format('shop id %s ships as role %s, not %s', p_shop, v_shop.role_name, v_role);
    END IF;
    v_count := jsonb_array_length(p_events);
    IF v_count = 0 THEN
        RETURN jsonb_build_object('cursor', v_shop.cursor_seq, 'hash', v_shop.cursor_hash);
    END IF;

    -- The batch, parsed once, set-based from here on (a row at a time costs several times more per entry).
    SELECT array_agg(e ORDER BY e.seq) INTO v_batch FROM jsonb_populate_recordset(NULL::pizzad_entry, p_events) e;

    -- One pass: the first and last sequence numbers, whether they are all distinct, whether any entry is malformed,
    -- whether the entry right after the cursor links to the cursor's entry, and the last entry's hash.
    SELECT min(seq), max(seq), count(DISTINCT seq),
           bool_or(seq IS NULL OR hash IS NULL OR length(hash) <> 64 OR "prevHash" IS NULL OR after IS NULL
                   OR at IS NULL OR action IS NULL OR ("order" IS NULL) <> (status IS NULL)
                   OR ("order" IS NULL AND action NOT IN ('availability_changed', 'z_report'))),
           coalesce(bool_and("prevHash" = v_shop.cursor_hash) FILTER (WHERE seq = v_shop.cursor_seq + 1), true),
           (array_agg(hash ORDER BY seq DESC))[1]
    INTO v_first, v_last, v_distinct, v_malformed, v_links, v_last_hash
    FROM unnest(v_batch);
    IF v_first IS NULL OR v_first < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ004', MESSAGE = 'an entry has no sequence number';
    END IF;
    IF v_first > v_shop.cursor_seq + 1 THEN
        RETURN jsonb_build_object('cursor', v_shop.cursor_seq, 'hash', v_shop.cursor_hash, 'rewind', true);
    END IF;
    IF v_distinct <> v_count OR v_last <> v_first + v_count - 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ004', MESSAGE = format('the batch from entry %s has a gap or a repeat', v_first);
    END IF;
    IF v_malformed THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ004', MESSAGE = format('the batch from entry %s has a malformed entry', v_first);
    END IF;
    IF NOT v_links THEN
        SELECT hash INTO v_previous FROM order_events WHERE shop_id = p_shop AND seq = v_shop.cursor_seq;
        v_links := coalesce((SELECT "prevHash" = v_previous FROM unnest(v_batch) WHERE seq = v_shop.cursor_seq + 1),
                            false);
    END IF;
    IF NOT v_links THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ001',
            MESSAGE = format('diverged: entry %s of shop %s does not link to the entry %s received before',
                             v_shop.cursor_seq + 1, p_shop, v_shop.cursor_seq),
            HINT = 'the shop''s database was replaced by an older copy; see the README, "Replication"';
    END IF;
    -- An entry already here must be the same entry: a resent batch is fine, a rewritten history is not. (Entries
    -- after the cursor are here only when the cursor was set back by hand.)
    SELECT b.seq, b.hash AS sent, e.hash AS held INTO v_bad
    FROM unnest(v_batch) b
    JOIN order_events e ON e.shop_id = p_shop AND e.seq = b.seq AND e.seq BETWEEN v_first AND v_last
    WHERE e.hash <> b.hash ORDER BY b.seq LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ001',
            MESSAGE = format('diverged: shop %s sent entry %s with hash %s, but entry %s here has hash %s',
                             p_shop, v_bad.seq, left(v_bad.sent, 12), v_bad.seq, left(v_bad.held, 12)),
            HINT = 'the shop''s database was replaced by an older copy; see the README, "Replication"';
    END IF;
    IF v_last <= v_shop.cursor_seq THEN
        -- Everything here already: nothing to write.
        UPDATE shops SET last_ingest_at = now() WHERE shop_id = p_shop;
        RETURN jsonb_build_object('cursor', v_shop.cursor_seq, 'hash', v_shop.cursor_hash);
    END IF;

    INSERT INTO order_events (shop_id, seq, order_id, action, status_after, at, actor_uid, actor_name, actor_pid,
                              reason, before, after, prev_hash, hash, actor_device, actor_address)
    SELECT p_shop, seq, "order", action, status, at, (actor ->> 'uid')::bigint, actor ->> 'name',
           (actor ->> 'pid')::integer, reason, before, after, "prevHash", hash, actor ->> 'device',
           actor ->> 'address'
    FROM unnest(v_batch) WHERE seq > v_shop.cursor_seq ORDER BY seq
    ON CONFLICT (shop_id, seq) DO NOTHING;

    -- Each order's latest state in the batch; an order's row only moves forward (last_seq), so a resent or
    -- rewound batch cannot put an older state over a newer one. Items in the wire form as they are, old nested
    -- ones flattened (OFFSET 0 keeps the lateral subquery from being inlined into each use of its column).
    INSERT INTO orders AS o (shop_id, order_id, ref, customer, note, status, currency, total, items,
                             created_at, updated_at, last_seq, subtotal, paid, balance, fulfilment, discounts, fees,
                             taxes, payments)
    SELECT p_shop, latest."order", a ->> 'ref', a ->> 'customer', a ->> 'note', a ->> 'status', a ->> 'currency',
           coalesce((a ->> 'total')::bigint,
                    (SELECT coalesce(sum((i ->> 'price')::bigint), 0) FROM jsonb_array_elements(wire.items) AS i)),
           wire.items, (a ->> 'createdAt')::timestamptz, (a ->> 'updatedAt')::timestamptz, latest.seq,
           coalesce((a ->> 'subtotal')::bigint, (a ->> 'total')::bigint,
                    (SELECT coalesce(sum((i ->> 'price')::bigint), 0) FROM jsonb_array_elements(wire.items) AS i)),
           coalesce((a ->> 'paid')::bigint, 0),
           coalesce((a ->> 'balance')::bigint, (a ->> 'total')::bigint, 0),
           coalesce(a -> 'fulfilment', '{"type": "pickup"}'), coalesce(a -> 'discounts', '[]'),
           coalesce(a -> 'fees', '[]'), coalesce(a -> 'taxes', '[]'), coalesce(a -> 'payments', '[]')
    FROM (SELECT DISTINCT ON ("order") "order", seq, after AS a FROM unnest(v_batch) WHERE "order" IS NOT NULL
          ORDER BY "order", seq DESC) latest
    CROSS JOIN LATERAL (
        SELECT CASE WHEN a -> 'items' @? '$[*].pizza' THEN pizzad_items(a -> 'items') ELSE a -> 'items' END AS items
        OFFSET 0) wire
    ON CONFLICT (shop_id, order_id) DO UPDATE
        SET ref = EXCLUDED.ref, customer = EXCLUDED.customer, note = EXCLUDED.note, status = EXCLUDED.status,
            currency = EXCLUDED.currency, total = EXCLUDED.total, items = EXCLUDED.items,
            created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at, last_seq = EXCLUDED.last_seq,
            subtotal = EXCLUDED.subtotal, paid = EXCLUDED.paid, balance = EXCLUDED.balance,
            fulfilment = EXCLUDED.fulfilment, discounts = EXCLUDED.discounts, fees = EXCLUDED.fees,
            taxes = EXCLUDED.taxes, payments = EXCLUDED.payments
        WHERE o.last_seq < EXCLUDED.last_seq;

    INSERT INTO z_reports (shop_id, number, at, first_seq, last_seq, figures)
    SELECT p_shop, (after ->> 'number')::bigint, at, (after ->> 'firstSeq')::bigint, seq, after
    FROM unnest(v_batch) WHERE action = 'z_report' AND seq > v_shop.cursor_seq
    ON CONFLICT (shop_id, number) DO NOTHING;

    UPDATE shops SET cursor_seq = v_last, cursor_hash = v_last_hash, last_ingest_at = now()
    WHERE shop_id = p_shop;
    RETURN jsonb_build_object('cursor', v_last, 'hash', v_last_hash);
END
$$;

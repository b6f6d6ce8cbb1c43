-- Central schema 6: shipping through a pooled role, so that a chain's PgBouncer keeps one pool for every shop.
--
-- With a role per shop passed through PgBouncer, PgBouncer keeps a pool per role. A thousand shops over a few dozen
-- server connections then take connections from each other (PgBouncer evicts an idle one from another pool and
-- logs in again as the next role): measured with 1,000 shops and 40 connections, PgBouncer 1.18 evicted new
-- connections before they were used and nothing was ingested for minutes (docs/PERFORMANCE.md, "A chain of shops").
-- So a chain's PgBouncer logs in to PostgreSQL as one pooled role for every shop (`user=` on its database line),
-- while each shop still logs in to PgBouncer with its own name and password.
--
-- A pooled role is a login role that is a member of pizzad_pooled (made here) and of pizzad_shop. In a pooled
-- session PostgreSQL cannot tell the shops apart, so:
--   - pizzad_ingest takes the shop's own role name as a fourth argument and registers the shop to it; after that,
--     the shop key (a secret each shop's database makes, that the centre never hands out in a pooled session) is
--     what proves a batch comes from that shop: a wrong key is PZ002, as before.
--   - pizzad_shop_state and pizzad_history (restore) refuse a pooled session: they hand out the shop key and the
--     history, so they need the shop's own role (PostgreSQL itself, or a PgBouncer database without `user=`).
-- A session that is not pooled works as before: its own role is the shop's.

DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'pizzad_pooled') THEN
        CREATE ROLE pizzad_pooled NOLOGIN;
    END IF;
END
$$;

-- Whether this session logged in as a pooled role (a direct member of pizzad_pooled; a superuser is not one).
-- PL/pgSQL, so that its query is planned once per session: a SQL function with its own settings is parsed and
-- planned again at every call (14% of PostgreSQL's time for a one-entry batch, measured with perf).
CREATE FUNCTION pizzad_pooled_session() RETURNS boolean
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RETURN EXISTS (SELECT FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid JOIN pg_roles u ON u.oid = m.member
                   WHERE g.rolname = 'pizzad_pooled' AND u.rolname = session_user);
END
$$;

-- Its statements keep one generic plan per session (plan_cache_mode): on the partitioned order_events a custom
-- plan looks cheaper (pruned at planning), so PostgreSQL planned every statement again at every call; a generic
-- plan prunes to the shop's partition when it starts, for the cost of a lookup.
CREATE FUNCTION pizzad_ingest(p_shop text, p_key text, p_events jsonb, p_role text) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    v_shop     shops%ROWTYPE;
    v_first    bigint;
    v_count    integer;
    v_previous text;
    v_bad      record;
    v_last     record;
    v_batch    pizzad_entry[];
    v_pooled   boolean := pizzad_pooled_session();
    v_role     text;
BEGIN
    IF p_shop IS NULL OR p_shop !~ '^[a-z0-9][a-z0-9_-]{0,62}$' THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ004', MESSAGE = format('bad shop id %L', p_shop);
    END IF;
    IF jsonb_typeof(p_events) IS DISTINCT FROM 'array' THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ004', MESSAGE = 'events must be a JSON array';
    END IF;
    -- Who ships: the session's role, or in a pooled session the role the shop names (its own, which it restores
    -- with); the shop key, checked below before anything else, is then what proves it.
    v_role := CASE WHEN v_pooled THEN p_role ELSE session_user END;
    IF v_role IS NULL OR NOT EXISTS (SELECT FROM pg_roles WHERE rolname = v_role) THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ004', MESSAGE = format('no role %L to ship as', v_role);
    END IF;
    INSERT INTO shops (shop_id, shop_key, role_name, cursor_hash)
    VALUES (p_shop, p_key, v_role, repeat('0', 64))
    ON CONFLICT (shop_id) DO NOTHING;
    SELECT * INTO v_shop FROM shops WHERE shop_id = p_shop FOR UPDATE;
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
    -- rewound batch cannot put an older state over a newer one. Items in the wire form as they are, old nested
    -- ones flattened (OFFSET 0 keeps the lateral subquery from being inlined into each use of its column).
    INSERT INTO orders AS o (shop_id, order_id, ref, customer, note, status, currency, total, items,
                             created_at, updated_at, last_seq)
    SELECT p_shop, latest."order", a ->> 'ref', a ->> 'customer', a ->> 'note', a ->> 'status', a ->> 'currency',
           coalesce((a ->> 'total')::bigint,
                    (SELECT coalesce(sum((i ->> 'price')::bigint), 0) FROM jsonb_array_elements(wire.items) AS i)),
           wire.items, (a ->> 'createdAt')::timestamptz, (a ->> 'updatedAt')::timestamptz, latest.seq
    FROM (SELECT DISTINCT ON ("order") "order", seq, after AS a FROM unnest(v_batch) ORDER BY "order", seq DESC) latest
    CROSS JOIN LATERAL (
        SELECT CASE WHEN a -> 'items' @? '$[*].pizza' THEN pizzad_items(a -> 'items') ELSE a -> 'items' END AS items
        OFFSET 0) wire
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

-- The three-argument form, as pizzads before schema 6 call it: the session's role ships.
CREATE OR REPLACE FUNCTION pizzad_ingest(p_shop text, p_key text, p_events jsonb) RETURNS jsonb
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT pizzad_ingest(p_shop, p_key, p_events, session_user::text)
$$;

-- Restore reads refuse a pooled session (see above); otherwise as in schema 4.
CREATE FUNCTION pizzad_refuse_pooled(p_shop text) RETURNS void
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF pizzad_pooled_session() THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ003',
            MESSAGE = format('role %s is pooled: restoring shop %s needs the shop''s own role', session_user, p_shop),
            HINT = 'connect as the shop''s role to PostgreSQL, or to a PgBouncer database without user=';
    END IF;
END
$$;
REVOKE ALL ON FUNCTION pizzad_refuse_pooled(text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION pizzad_shop_state(p_shop text) RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_shop shops%ROWTYPE;
BEGIN
    PERFORM pizzad_refuse_pooled(p_shop);
    SELECT * INTO v_shop FROM shops WHERE shop_id = p_shop;
    IF NOT FOUND THEN
        RETURN jsonb_build_object('cursor', NULL);
    END IF;
    IF v_shop.role_name <> session_user THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ003',
            MESSAGE = format('shop id %s ships as role %s, not %s', p_shop, v_shop.role_name, session_user);
    END IF;
    RETURN jsonb_build_object(
        'key', v_shop.shop_key, 'cursor', v_shop.cursor_seq, 'hash', v_shop.cursor_hash,
        'events', (SELECT count(*) FROM order_events WHERE shop_id = p_shop AND seq <= v_shop.cursor_seq),
        'lastAt', (SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') FROM order_events
                   WHERE shop_id = p_shop AND seq = v_shop.cursor_seq));
END
$$;

CREATE OR REPLACE FUNCTION pizzad_history(p_shop text, p_after bigint, p_limit integer)
RETURNS TABLE (seq bigint, at_ms bigint, actor_uid bigint, actor_name text, actor_pid integer, action text,
               order_id bigint, status_after text, reason text, before text, after text, prev_hash text, hash text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    PERFORM pizzad_refuse_pooled(p_shop);
    IF NOT EXISTS (SELECT FROM shops s WHERE s.shop_id = p_shop AND s.role_name = session_user) THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ003',
            MESSAGE = format('shop id %s is not registered to role %s', p_shop, session_user);
    END IF;
    RETURN QUERY
    SELECT e.seq, (extract(epoch FROM e.at) * 1000)::bigint, e.actor_uid, e.actor_name, e.actor_pid, e.action,
           e.order_id, e.status_after, e.reason, e.before::text, e.after::text, e.prev_hash, e.hash
    FROM order_events e
    WHERE e.shop_id = p_shop AND e.seq > p_after
    ORDER BY e.seq
    LIMIT least(greatest(p_limit, 1), 10000);
END
$$;

REVOKE ALL ON FUNCTION pizzad_ingest(text, text, jsonb, text), pizzad_pooled_session() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pizzad_ingest(text, text, jsonb, text), pizzad_pooled_session() TO pizzad_shop;

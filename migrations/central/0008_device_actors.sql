-- Central schema 8: who made a change over a shop's order API (CONTRACT section 15).
--
-- A shop's audit entry for a change made over its order API names the device and the peer's address beside the
-- uid, name and pid (the shop's schema 5); both are in the entry's hash. A shop ships them in the entry's actor,
-- {uid, name, pid, device, address}; pizzad_ingest stores them, and pizzad_history hands them back to
-- `pizzad restore --from-central`, so that the rebuilt entries hash as the shop's did. Entries made over the
-- control socket leave both NULL, as every entry shipped before this migration.
ALTER TABLE order_events ADD COLUMN actor_device text, ADD COLUMN actor_address text;

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
                   OR "order" IS NULL OR at IS NULL OR action IS NULL OR status IS NULL),
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

    UPDATE shops SET cursor_seq = v_last, cursor_hash = v_last_hash, last_ingest_at = now()
    WHERE shop_id = p_shop;
    RETURN jsonb_build_object('cursor', v_last, 'hash', v_last_hash);
END
$$;

-- pizzad_history returns the two columns too: a function's result type cannot change in place.
DROP FUNCTION pizzad_history(text, bigint, integer);
CREATE FUNCTION pizzad_history(p_shop text, p_after bigint, p_limit integer)
RETURNS TABLE (seq bigint, at_ms bigint, actor_uid bigint, actor_name text, actor_pid integer, action text,
               order_id bigint, status_after text, reason text, before text, after text, prev_hash text, hash text,
               actor_device text, actor_address text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    PERFORM pizzad_refuse_pooled(p_shop);
    IF NOT EXISTS (SELECT FROM shops s WHERE s.shop_id = p_shop AND s.role_name = session_user) THEN
        RAISE EXCEPTION USING ERRCODE = 'PZ003',
            MESSAGE = format('shop id %s is not registered to role %s', p_shop, session_user);
    END IF;
    RETURN QUERY
    SELECT e.seq, (extract(epoch FROM e.at) * 1000)::bigint, e.actor_uid, e.actor_name, e.actor_pid, e.action,
           e.order_id, e.status_after, e.reason, e.before::text, e.after::text, e.prev_hash, e.hash, e.actor_device,
           e.actor_address
    FROM order_events e
    WHERE e.shop_id = p_shop AND e.seq > p_after
    ORDER BY e.seq
    LIMIT least(greatest(p_limit, 1), 10000);
END
$$;

REVOKE ALL ON FUNCTION pizzad_history(text, bigint, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pizzad_history(text, bigint, integer) TO pizzad_shop;

-- pizzad central schema 4: a shop's history read back, for `pizzad restore --from-central`.
--
-- A shop whose disk died has every change here, entry by entry with its hash. These functions let the shop's own
-- role (the one registered for the shop id) read its own history and nothing of any other shop's. pizzad
-- rebuilds the shop from the entries, recomputing every hash from the fields and checking the chain, so a damaged
-- or altered centre is caught before anything local is replaced.
-- Raises: PZ003 wrong role (the shop id is registered to another PostgreSQL role).

-- pizzad_shop_state(shop): the shop's key (which database speaks for it), cursor and hash, and how many of its
-- entries are stored up to the cursor. NULL cursor: the centre does not know the shop.
CREATE FUNCTION pizzad_shop_state(p_shop text) RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_shop shops%ROWTYPE;
BEGIN
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

-- pizzad_history(shop, after, limit): the shop's entries after sequence number `after`, in order, at most `limit`
-- (up to 10,000) at a time: a primary-key range scan. The time as milliseconds since 1970 (what the shop's text
-- held), before and after as the JSON the shop sent.
CREATE FUNCTION pizzad_history(p_shop text, p_after bigint, p_limit integer)
RETURNS TABLE (seq bigint, at_ms bigint, actor_uid bigint, actor_name text, actor_pid integer, action text,
               order_id bigint, status_after text, reason text, before text, after text, prev_hash text, hash text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
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

REVOKE ALL ON FUNCTION pizzad_shop_state(text), pizzad_history(text, bigint, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pizzad_shop_state(text), pizzad_history(text, bigint, integer) TO pizzad_shop;

-- pizzad schema 6: what leaves the shop (CONTRACT section 16): kitchen printers and webhooks.
--
-- The outbox is audit_log itself, as for shipping to the centre: every change's complete entry is committed with the
-- change, in sequence, so nothing committed can be missed and nothing is written for a change that rolled back.
-- Each printer and webhook is a cursor over it: delivered_seq is the last entry it has dealt with (sent, or not for
-- it), moved only after the receiver confirmed. attempted_seq is the entry a printer was last sent before knowing the
-- outcome: when it is past delivered_seq at the next attempt, the ticket may already be on paper and says REPRINT.
-- failing_since is when the destination's current run of failures began (kept across restarts, so that its limit
-- counts from the first failure); disabled_at is set when it failed for longer than its limit, or a webhook answered
-- 410, and cleared by `pizzactl outbox retry NAME`. One row per configured name, created at its first start from the
-- newest entry then (a new destination is not sent the shop's whole past); a row whose name is no longer configured
-- is left alone, and picks up where it was if the name comes back.
CREATE TABLE outbox_destinations (
    name            TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
    kind            TEXT NOT NULL CHECK (kind IN ('printer', 'webhook')),
    delivered_seq   INTEGER NOT NULL CHECK (delivered_seq >= 0),
    attempted_seq   INTEGER NOT NULL DEFAULT 0 CHECK (attempted_seq >= 0),
    failing_since   TEXT,
    last_error      TEXT,
    disabled_at     TEXT,
    disabled_reason TEXT,
    created_at      TEXT NOT NULL
) STRICT;

-- pizzad schema 5: the order API (CONTRACT section 15): its devices, the answers it keeps for idempotency keys, and
-- who made a change over it (the device and the peer's address) in the history and the audit log.
--
-- A change made over the control socket leaves both actor columns NULL, and its audit hash is computed as before
-- (the two fields enter the hash only when either is set), so every entry written before this migration verifies
-- unchanged.
ALTER TABLE audit_log ADD COLUMN actor_device TEXT CHECK (actor_device IS NULL OR length(actor_device) BETWEEN 1 AND 64);
ALTER TABLE audit_log ADD COLUMN actor_address TEXT CHECK (actor_address IS NULL OR length(actor_address) <= 64);
ALTER TABLE status_history ADD COLUMN actor_device TEXT
    CHECK (actor_device IS NULL OR length(actor_device) BETWEEN 1 AND 64);
ALTER TABLE status_history ADD COLUMN actor_address TEXT CHECK (actor_address IS NULL OR length(actor_address) <= 64);

-- The devices that may use the order API: `pizzactl device add NAME --role ROLE`. Only the SHA-256 of a token is
-- kept (hex); a platform that signs its pushes has its Standard Webhooks secret instead (the HMAC needs the secret
-- itself). A revoked device keeps its row, so its changes in the audit log still name a device that was.
CREATE TABLE api_devices (
    name           TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
    role           TEXT NOT NULL CHECK (role IN ('till', 'kitchen', 'reader', 'platform')),
    token_sha256   TEXT UNIQUE CHECK (token_sha256 IS NULL OR length(token_sha256) = 64),
    signing_secret TEXT,
    created_at     TEXT NOT NULL,
    revoked_at     TEXT,
    last_seen_at   TEXT,
    last_address   TEXT,
    CHECK ((token_sha256 IS NULL) <> (signing_secret IS NULL))
) STRICT;

-- The answers kept for `Idempotency-Key`s, written in the same transaction as the change they answer: the key, per
-- device, names the audit entry whose order is the answer (its `after`), and the request's SHA-256 tells a replay
-- from a different request under the same key. Kept api.idempotencyHours (48 by default).
CREATE TABLE api_requests (
    device      TEXT NOT NULL,
    key         TEXT NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    request     TEXT NOT NULL CHECK (length(request) = 64),
    seq         INTEGER NOT NULL REFERENCES audit_log (seq),
    status      INTEGER NOT NULL CHECK (status BETWEEN 200 AND 299),
    created_at  TEXT NOT NULL,
    PRIMARY KEY (device, key)
) STRICT, WITHOUT ROWID;
CREATE INDEX api_requests_by_age ON api_requests (created_at);

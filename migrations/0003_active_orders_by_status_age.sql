-- pizzad schema 3: an index of the orders still under way by status and the time of their last change, so the
-- age of the oldest order in each active status (pizzad_orders_oldest_age_seconds) is one index seek, not a scan.
-- Partial: delivered and cancelled orders (nearly all of a long-running shop's) are not in it and cost it nothing.
-- The WHERE is two inequalities, not a NOT IN list: see 0002 for why lists cost a temporary b-tree per row.
CREATE INDEX carts_active_by_status_age ON carts (status, updated_at)
    WHERE status <> 'delivered' AND status <> 'cancelled';

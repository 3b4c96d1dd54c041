-- The operators' dashboard lists sites of every tenant by state, newest first: without a tenant,
-- (tenant_id, state, id) cannot serve that; this index does, so the page stays a bounded read.
CREATE INDEX pv_site_state_all ON pv_site (state, id);

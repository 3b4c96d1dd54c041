-- Each tenant's write rate as one token bucket shared by every API process (a bucket per process
-- would let N processes admit N times the rate). Tokens in millionths; refilled lazily by the one
-- UPDATE that takes a token. Keep in step with the other dialect's V6.
CREATE TABLE pv_write_bucket (
    tenant_id   BIGINT PRIMARY KEY,
    tokens_u    BIGINT NOT NULL,
    refilled_ms BIGINT NOT NULL
);

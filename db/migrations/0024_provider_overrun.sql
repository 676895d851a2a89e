-- What settlement charged past the month's cap: an answer that used more than its reservation when
-- the month had no room left for the difference. Recorded (and audited) so the provider listing
-- shows it; the month's spend then stands above its cap and every further request is refused.
ALTER TABLE provider_spend ADD COLUMN overrun_micros bigint NOT NULL DEFAULT 0 CHECK (overrun_micros >= 0);

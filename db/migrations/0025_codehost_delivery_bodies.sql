-- A captured App delivery replayed under a new delivery id: each recorded delivery keeps the SHA-256 of
-- its signed raw body, unique, so a second delivery of the same bytes (whatever its id) is a duplicate
-- and changes nothing while the first is kept (pruned after 30 days with its row). The code host's own
-- redelivery keeps the id and the bytes. Rows recorded before this column: NULL.
ALTER TABLE codehost_deliveries ADD COLUMN body_sha256 text CHECK (body_sha256 ~ '^[0-9a-f]{64}$');
CREATE UNIQUE INDEX codehost_deliveries_body ON codehost_deliveries (body_sha256);

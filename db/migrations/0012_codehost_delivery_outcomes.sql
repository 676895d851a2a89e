-- What became of each recorded App delivery. A refused one (its payload broke this service's rules,
-- such as a NUL character in an account login) is recorded too: an operator can find it, and a
-- redelivery of it is answered as a duplicate. Rows recorded before this column: NULL.
ALTER TABLE codehost_deliveries ADD COLUMN outcome text CHECK (outcome IN ('applied', 'ignored', 'refused'));
-- An acted-on delivery is recorded first (that insert is what makes it once-only) and turns out
-- ignored only later in its transaction.
GRANT SELECT (delivery_id), UPDATE (outcome) ON codehost_deliveries TO svc_app;

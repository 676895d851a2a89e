-- Until when someone may be watching the organization's console live (worker/live): set when a
-- channel opens, to more than a channel's longest life (one hour), so while it is in the future a
-- channel may be open, and once it is past none is. Whoever commits a change reads it in a statement
-- it sends anyway, and tells the organization's live object only while it is in the future: while
-- nobody watches, a change costs no call.
ALTER TABLE organizations ADD COLUMN watched_until timestamptz;

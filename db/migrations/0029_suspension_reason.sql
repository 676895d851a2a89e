-- Why an operator suspended an organization, in the operator's words (issue 35): the portal asks for it
-- and the organization's members read it in the console. `suspended_reason` stays the kind (`operator`
-- or `deletion`); a deletion's suspension has no words, and lifting a suspension clears them.
ALTER TABLE organizations ADD COLUMN suspended_because text CHECK (char_length(suspended_because) BETWEEN 1 AND 500);

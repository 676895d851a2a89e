-- A client may revoke its own access token at the revocation endpoint (RFC 7009): the grant records
-- that the client ended it ('client'), beside the person, a reused code, a membership that ended and
-- the organization's deletion.
ALTER TABLE protocol_grants DROP CONSTRAINT protocol_grants_revoke_reason_check;
ALTER TABLE protocol_grants ADD CONSTRAINT protocol_grants_revoke_reason_check
  CHECK (revoke_reason IN ('person', 'code_reused', 'membership_ended', 'organization_deleted', 'client'));

-- Accounts by the code host's numeric id, never by login (a login can be given up and taken by another
-- account). Installations are found before their organization is known by the account's id; the
-- stored login is only a display name, refreshed by deliveries and sign-ins.
DROP POLICY by_account ON installations;
DROP INDEX installations_account;
CREATE INDEX installations_account_id ON installations (account_id);
CREATE POLICY by_account_id ON installations FOR SELECT USING (account_id = app_lookup('installation_account_id')::bigint);

-- Magic-link sign-in signs in the one person of an address who has no code-host account: exactly one.
CREATE UNIQUE INDEX people_email_only ON people (email) WHERE codehost_user_id IS NULL AND closed_at IS NULL;

-- The organization SVC_ANALYTICS_OPERATOR_ORG named when the dashboard was first asked for: a slug
-- freed by a deletion and taken by another organization does not carry the dashboard with it. Belongs
-- to no organization; seen and written only under the slug's own lookup.
CREATE TABLE analytics_operator_pins (
  slug text PRIMARY KEY,
  operator_org uuid NOT NULL,
  pinned_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE analytics_operator_pins ENABLE ROW LEVEL SECURITY;
ALTER TABLE analytics_operator_pins FORCE ROW LEVEL SECURITY;
CREATE POLICY by_slug ON analytics_operator_pins FOR SELECT USING (slug = app_lookup('org_slug'));
CREATE POLICY pin ON analytics_operator_pins FOR INSERT WITH CHECK (slug = app_lookup('org_slug'));
GRANT SELECT, INSERT ON analytics_operator_pins TO svc_app;

-- The site's two forms: enterprise contact requests (leads) and applications. They arrive from
-- anyone, belong to no organization, and are write-only for the Worker: the application role may
-- insert a row and nothing else (no read, update or delete), so nothing reads them back over HTTP.
-- The operator role reads them (the operator portal, when it exists).
CREATE TABLE site_leads (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  email text NOT NULL,
  company text NOT NULL,
  role text,
  team_size text,
  message text,
  source_origin text,
  received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX site_leads_received ON site_leads (received_at);

CREATE TABLE site_applications (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  email text NOT NULL,
  company text,
  codehost_login text,
  team_size text,
  use_case text NOT NULL,
  source_origin text,
  received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX site_applications_received ON site_applications (received_at);

DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['site_leads', 'site_applications'] LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
    EXECUTE format('CREATE POLICY insert_only ON %I FOR INSERT TO svc_app WITH CHECK (true)', t);
    EXECUTE format('CREATE POLICY operator_read ON %I FOR SELECT TO svc_operator USING (true)', t);
    EXECUTE format('GRANT INSERT ON %I TO svc_app', t);
    EXECUTE format('GRANT SELECT ON %I TO svc_operator', t);
  END LOOP;
END $$;

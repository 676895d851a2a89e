-- Database roles. The migration role (the login running this) owns every table and runs all DDL.
--   svc_app          the Worker's role: no DDL, owns nothing, row-level security applies (NOBYPASSRLS)
--   svc_operator     the operator portal's role: reads across tenants, writes nothing
--   svc_maintenance  owns the event partitions: creates, attaches, archives and drops them
-- Roles are created without LOGIN; a deployment grants them to its login roles or gives them passwords.
DO $$
DECLARE r text;
BEGIN
  FOREACH r IN ARRAY ARRAY['svc_app', 'svc_operator', 'svc_maintenance'] LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
      EXECUTE format('CREATE ROLE %I NOLOGIN NOBYPASSRLS NOCREATEDB NOCREATEROLE', r);
    END IF;
  END LOOP;
END $$;

-- The migration role acts for the maintenance role when it alters the events table.
GRANT svc_maintenance TO CURRENT_USER;

-- Nobody but the migration role creates objects, not even temporary tables.
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO svc_app, svc_operator, svc_maintenance;
-- The maintenance role's one power: creating the event partitions it owns.
GRANT CREATE ON SCHEMA public TO svc_maintenance;
DO $$ BEGIN
  EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
END $$;

-- The organization a transaction acts for. Unset (or reset to '') reads as NULL, which matches no row:
-- a request that forgot to choose an organization sees nothing rather than everything.
CREATE FUNCTION app_org_id() RETURNS uuid
  LANGUAGE sql STABLE
  AS $$ SELECT NULLIF(current_setting('app.org_id', true), '')::uuid $$;

-- A lookup key set for one transaction (a token hash, a slug): lets a request find the one row whose
-- key it already holds before it knows the organization.
CREATE FUNCTION app_lookup(name text) RETURNS text
  LANGUAGE sql STABLE
  AS $$ SELECT NULLIF(current_setting('app.lookup_' || name, true), '') $$;

-- Every tenant table goes through this one function: forced row-level security, the tenant policy,
-- the operator's read policy and the application role's grants.
CREATE FUNCTION svc_protect_tenant_table(t regclass, app_privileges text DEFAULT 'SELECT, INSERT, UPDATE, DELETE')
  RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', t);
  EXECUTE format('ALTER TABLE %s FORCE ROW LEVEL SECURITY', t);
  EXECUTE format('CREATE POLICY tenant ON %s USING (org_id = app_org_id()) WITH CHECK (org_id = app_org_id())', t);
  EXECUTE format('CREATE POLICY operator_read ON %s FOR SELECT TO svc_operator USING (true)', t);
  EXECUTE format('GRANT %s ON %s TO svc_app', app_privileges, t);
  EXECUTE format('GRANT SELECT ON %s TO svc_operator', t);
END $$;
REVOKE EXECUTE ON FUNCTION svc_protect_tenant_table(regclass, text) FROM PUBLIC;

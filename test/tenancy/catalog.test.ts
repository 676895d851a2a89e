// The database catalog itself: every table of the schema is either a tenant table locked down by
// svc_protect_tenant_table (db/migrations/0001_roles.sql) or listed below with why it is not one.
// A new table that is neither fails here, named.
import { describe, expect, it } from "vitest";
import { asRole } from "../support/sql";

/** How a table that is not a tenant table keeps one organization's rows from another. */
type Guard =
  /** Row-level security enabled and forced: its own policies (beside it in the migrations) decide who sees a row. */
  | { rls: true }
  /** No row-level security: the application role can read only these columns (none: []). */
  | { appReads: string[] };

const NOT_TENANT_TABLES: Record<string, Guard & { why: string }> = {
  schema_migrations: {
    appReads: ["applied_at", "checksum", "name"],
    why: "the migration runner's own record (db/migrate.ts); only the migration role writes it, and /readyz reads which migrations are applied (db/readiness.ts)",
  },
  organizations: { rls: true, why: "the tenant itself: a row is visible as its own id, by slug lookup and to its members" },
  people: { rls: true, why: "a person spans organizations: visible to themselves and to the organizations they belong to" },
  sessions: { rls: true, why: "a browser session belongs to a person, found by its cookie's hash or its person" },
  magic_links: { rls: true, why: "belongs to an e-mail address before any organization is known; found by its token's hash" },
  device_authorizations: { rls: true, why: "the CLI's sign-in, reached only by its device or user code; the organization is chosen at approval" },
  deletion_exports: { rls: true, why: "the held export outlives its deleted organization; found only by the link token's hash" },
  used_identity_tokens: { appReads: ["expires_at"], why: "exchanged identity-token ids, belonging to no organization: added and pruned, never read back" },
  codehost_deliveries: {
    appReads: ["delivery_id", "received_at"],
    why: "handled App delivery ids and their outcome, recorded before any organization is known; no organization's data in them",
  },
  site_events: { appReads: [], why: "the site beacon's stream: insert-only for the application role (a read is a permission error); no organization's data" },
  site_event_rejects: { appReads: [], why: "counts of refused and duplicate beacon events, insert-only for the application role" },
  analytics_operator_pins: { rls: true, why: "which organization SVC_ANALYTICS_OPERATOR_ORG's slug named when first used; seen only under that slug's lookup" },
  analytics_daily: {
    appReads: ["day", "dimension", "metric", "value"],
    why: "installation-wide daily aggregates; the dashboard's own check (the operating organization) decides who reads them",
  },
  analytics_org_cohorts: { appReads: ["cohort_week", "org_key"], why: "retention cohorts under keyed pseudonyms, never an organization id" },
  analytics_rollup_state: { appReads: [], why: "the rollup's own record of since when raw beacon events are whole; only the maintenance role" },
  analytics_org_active_weeks: { appReads: ["org_key", "week"], why: "active weeks under keyed pseudonyms, never an organization id" },
  billing_deliveries: { appReads: ["received_at"], why: "handled billing delivery ids, belonging to no organization: added and pruned, never read back" },
  operators: { appReads: [], why: "the service's operators, not customers: only the operator role (SVC_ADMIN_DATABASE_URL) reads or writes them" },
  operator_sessions: { appReads: [], why: "operator portal sessions: only the operator role reads or writes them" },
  failure_groups: {
    appReads: [],
    why: "the own-failure store spans organizations: the application role only records through svc_record_failure; operators read it",
  },
  site_leads: {
    rls: true,
    why: "the site's contact form, from anyone, before any organization: the application role may only insert (db/migrations/0019_leads.sql)",
  },
  site_applications: { rls: true, why: "the site's application form, from anyone, before any organization: the application role may only insert" },
  assistant_usage: {
    rls: true,
    why: "the website assistant's daily limits are a person's, whichever organization they ask from: like a session, seen only by its person's lookup",
  },
  protocol_clients: {
    rls: true,
    why: "a model client registers before anyone signs in, so it belongs to no organization; found only by the client_id a request names",
  },
};

// What svc_protect_tenant_table creates.
const TENANT_POLICY = "(org_id = app_org_id())";

interface CatalogTable {
  table: string;
  kind: string;
  parent: string | null;
  hasOrgId: boolean;
  rls: boolean;
  forced: boolean;
  policies: Array<{ name: string; command: string; roles: string[]; using: string | null; check: string | null }>;
  appColumns: string[];
}

// Tables, partitioned tables, views, materialized views and foreign tables: anything a query can read.
const catalog = () =>
  asRole(
    "superuser",
    async (client) =>
      (
        await client.query<CatalogTable>(`
        SELECT c.relname AS table, c.relkind AS kind,
               (SELECT p.relname FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent WHERE i.inhrelid = c.oid) AS parent,
               EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'org_id' AND NOT a.attisdropped) AS "hasOrgId",
               c.relrowsecurity AS rls, c.relforcerowsecurity AS forced,
               COALESCE((SELECT json_agg(json_build_object(
                          'name', p.polname, 'command', p.polcmd,
                          'roles', (SELECT json_agg(CASE WHEN r = 0 THEN 'public' ELSE pg_get_userbyid(r) END) FROM unnest(p.polroles) r),
                          'using', pg_get_expr(p.polqual, p.polrelid), 'check', pg_get_expr(p.polwithcheck, p.polrelid)))
                        FROM pg_policy p WHERE p.polrelid = c.oid), '[]') AS policies,
               ARRAY(SELECT a.attname::text FROM pg_attribute a
                     WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
                       AND has_column_privilege('svc_app', c.oid, a.attnum, 'SELECT') ORDER BY a.attname) AS "appColumns"
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
        WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
        ORDER BY c.relname`)
      ).rows,
  );

/** What is wrong with a tenant table, if anything. */
function tenantFaults(table: CatalogTable): string[] {
  const tenant = table.policies.find((policy) => policy.name === "tenant");
  return [
    ...(table.kind === "r" || table.kind === "p" ? [] : [`is a relation of kind ${table.kind}, which row-level security does not cover`]),
    ...(table.rls && table.forced ? [] : ["does not enable and force row-level security"]),
    ...(tenant?.command === "*" && tenant.roles.join() === "public" && tenant.using === TENANT_POLICY && tenant.check === TENANT_POLICY
      ? []
      : [`has no tenant policy ${TENANT_POLICY} for every command and role`]),
    ...(table.policies.some((policy) => policy.name === "operator_read") ? [] : ["has no operator_read policy"]),
  ];
}

function guardFaults(table: CatalogTable, guard: Guard): string[] {
  if ("rls" in guard) return table.rls && table.forced && table.policies.length > 0 ? [] : ["does not enable and force row-level security with policies"];
  return table.appColumns.join() === guard.appReads.join() ? [] : [`lets the application role read ${table.appColumns.join(", ") || "nothing"}`];
}

describe("catalog", () => {
  it("makes every table of the schema a locked-down tenant table or a listed exception with its own guard", async () => {
    const tables = await catalog();
    const byName = new Map(tables.map((table) => [table.table, table]));
    expect(tables.length).toBeGreaterThan(20);
    const faults: string[] = [];
    for (const table of tables) {
      const fault = (what: string) => faults.push(`${table.table} ${what}`);
      const listed = NOT_TENANT_TABLES[table.table];
      if (table.parent) {
        // A partition is judged by its parent, whose policies every query through the parent meets; the
        // application role must not read it directly, around them.
        if (table.appColumns.length > 0) fault(`is a partition of ${table.parent} the application role can read directly`);
      } else if (listed) {
        if (table.hasOrgId) fault("has an org_id column but is listed as not a tenant table");
        guardFaults(table, listed).forEach(fault);
      } else if (table.hasOrgId) {
        tenantFaults(table).forEach(fault);
      } else {
        fault("is neither a tenant table (no org_id) nor listed in NOT_TENANT_TABLES with the reason");
      }
    }
    for (const name of Object.keys(NOT_TENANT_TABLES)) if (!byName.has(name)) faults.push(`${name} is listed in NOT_TENANT_TABLES but does not exist`);
    expect(faults).toEqual([]);
  });

  it("gives the application role no way around row-level security", async () => {
    await asRole("superuser", async (client) => {
      const { rows } = await client.query("SELECT rolsuper, rolbypassrls, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = 'svc_app'");
      expect(rows[0]).toEqual({ rolsuper: false, rolbypassrls: false, rolcreaterole: false, rolcreatedb: false });
      const owned = await client.query("SELECT count(*)::int AS n FROM pg_class WHERE relowner = 'svc_app'::regrole");
      expect(owned.rows[0].n).toBe(0);
    });
  });
});

// Row-level-security policies the migrations give many tables (db/README.md, "Schema"). A table whose
// schema calls `.enableRLS()` has row-level security enabled AND forced in the migrations (drizzle has
// no word for FORCE; test/db/schema.test.ts holds the two flags equal).
import { type SQL, sql } from "drizzle-orm";
import { pgPolicy } from "drizzle-orm/pg-core";

/** The operator portal reads every row (`svc_protect_tenant_table`, migrations/0001_roles.sql). */
export const operatorRead = () => pgPolicy("operator_read", { for: "select", to: "svc_operator", using: sql`true` });

/** What `svc_protect_tenant_table` gives a tenant table: its organization's rows, and the operator's read. */
export const tenantPolicies = () => [pgPolicy("tenant", { using: sql`org_id = app_org_id()`, withCheck: sql`org_id = app_org_id()` }), operatorRead()];

/**
 * A table the application role may not delete from: the maintenance role deletes the rows of an
 * organization whose deletion is due at its Delete step, and no others (migrations/0030; the
 * restrictive policy keeps the tenant policy from letting it delete more).
 */
export const maintenanceDeletion = () => {
  const deleting = sql`org_id IN (SELECT d.org_id FROM deletions d WHERE d.step = 'delete')`;
  return [
    pgPolicy("maintenance_deletion", { to: "svc_maintenance", using: deleting }),
    pgPolicy("maintenance_deletion_only", { as: "restrictive", for: "delete", to: "svc_maintenance", using: deleting }),
  ];
};

/** The maintenance role reads every row for the analytics roll-up (migrations/0020_site_analytics.sql). */
export const maintenanceRollup = () => pgPolicy("maintenance_rollup", { for: "select", to: "svc_maintenance", using: sql`true` });

/** The activity rollup reads a table's rows of today and yesterday (UTC) only (migrations/0036). */
export const maintenanceActivity = (column: SQL) =>
  pgPolicy("maintenance_activity", { for: "select", to: "svc_maintenance", using: sql`${column} >= (now() AT TIME ZONE 'UTC')::date - 1` });

// The drizzle schema (db/schema/) is written by hand beside the SQL migrations, which stay the applied
// history; this test keeps the two equal. It reads PostgreSQL's catalog after migrating and compares
// every table: columns (type, nullability, default, generation, enumerated values), primary key, unique
// constraints, foreign keys, indexes, row-level security (enabled and forced) and policies. Defaults,
// indexes and policies are compared as PostgreSQL prints them: inside a rolled-back transaction the
// schema's own are put on the table and read back.
import type { Client } from "@neondatabase/serverless";
import { is, SQL } from "drizzle-orm";
import { getTableConfig, type IndexedColumn, type PgColumn, PgDialect, type PgPolicy, PgRole, PgTable } from "drizzle-orm/pg-core";
import { beforeAll, describe, expect, it } from "vitest";
import * as schema from "../../db/schema";
import type { TestDatabase } from "../setup/bindings";
import { ownDatabase } from "../support/own-database";
import { asRole } from "../support/sql";

interface ColumnShape {
  type: string;
  notNull: boolean;
  default: string | null;
  generated: string | null;
  identity: string | null;
  enum: string[] | null;
}
interface PolicyShape {
  as: string;
  for: string;
  to: string[];
  using: string | null;
  withCheck: string | null;
}
interface TableShape {
  columns: Record<string, ColumnShape>;
  primaryKey: string[];
  unique: string[];
  foreignKeys: string[];
  indexes: string[];
  rowLevelSecurity: string;
  policies: Record<string, PolicyShape>;
}

const tables = (Object.values(schema) as unknown[]).filter((value): value is PgTable => is(value, PgTable));
const dialect = new PgDialect();
const render = (fragment: SQL) => dialect.sqlToQuery(fragment, "indexes").sql;
const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;
const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
const IDENTITY: Record<string, string> = { a: "always", d: "byDefault" };
const ON_DELETE: Record<string, string> = { a: "no action", r: "restrict", c: "cascade", n: "set null", d: "set default" };
// drizzle has no FORCE ROW LEVEL SECURITY: in this schema `.enableRLS()` stands for ENABLE and FORCE (db/README.md, "Schema").
const FORCED = "enabled and forced";
const rowLevelSecurity = (enabled: boolean, forced: boolean) =>
  enabled ? (forced ? FORCED : "enabled, not forced") : forced ? "disabled (but forced)" : "disabled";

/** Tables of the public schema, without the event partitions and the migration runner's bookkeeping. */
async function catalogTables(client: Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.relname <> 'schema_migrations'
     ORDER BY 1`,
  );
  return rows.map((row) => row.name);
}

/** What the catalog says of a table (in the transaction `client` is in, so the probe sees its own changes). */
async function catalogShape(client: Client, table: string): Promise<TableShape> {
  const columns = await client.query<{ name: string; type: string; not_null: boolean; expr: string | null; generated: string; identity: string }>(
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null,
            pg_get_expr(d.adbin, d.adrelid) AS expr, a.attgenerated AS generated, a.attidentity AS identity
     FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped`,
    [table],
  );
  const constraints = await client.query<{
    type: string;
    columns: string[];
    foreign_table: string | null;
    foreign_columns: string[];
    on_delete: string;
    def: string;
  }>(
    `SELECT k.contype AS type, k.confrelid::regclass::text AS foreign_table, k.confdeltype AS on_delete, pg_get_constraintdef(k.oid) AS def,
            ARRAY(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY u(n, o) JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.o) AS columns,
            ARRAY(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY u(n, o) JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.n ORDER BY u.o) AS foreign_columns
     FROM pg_constraint k WHERE k.conrelid = $1::regclass AND k.contype IN ('p', 'u', 'f', 'c')`,
    [table],
  );
  const { rows: security } = await client.query<{ enabled: boolean; forced: boolean }>(
    `SELECT relrowsecurity AS enabled, relforcerowsecurity AS forced FROM pg_class WHERE oid = $1::regclass`,
    [table],
  );
  const policies = await client.query<{ name: string; permissive: string; cmd: string; roles: string[]; qual: string | null; with_check: string | null }>(
    `SELECT p.policyname AS name, p.permissive, p.cmd, p.roles::text[] AS roles, p.qual, p.with_check
     FROM pg_policies p WHERE p.schemaname = 'public' AND p.tablename = $1`,
    [table],
  );
  const indexes = await client.query<{ def: string }>(
    `SELECT pg_get_indexdef(x.indexrelid) AS def FROM pg_index x
     WHERE x.indrelid = $1::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid AND k.conrelid = x.indrelid)`,
    [table],
  );
  // A text column's enumeration is its `CHECK (column IN (...))`, which PostgreSQL prints as `= ANY (ARRAY[...])`.
  const enums = new Map<string, string[]>();
  for (const check of constraints.rows.filter((row) => row.type === "c")) {
    const values = /^CHECK \(\((\w+) = ANY \(ARRAY\[(.*)\]\)\)\)$/.exec(check.def);
    if (values)
      enums.set(
        values[1]!,
        [...values[2]!.matchAll(/'((?:[^']|'')*)'::text/g)].map((value) => value[1]!.replaceAll("''", "'")),
      );
  }
  const of = (type: string) => constraints.rows.filter((row) => row.type === type);
  return {
    columns: Object.fromEntries(
      columns.rows.map((column) => [
        column.name,
        {
          type: column.type,
          notNull: column.not_null,
          default: column.generated ? null : column.expr,
          generated: column.generated ? column.expr : null,
          identity: IDENTITY[column.identity] ?? null,
          enum: enums.get(column.name) ?? null,
        },
      ]),
    ),
    primaryKey: of("p")[0]?.columns ?? [],
    unique: of("u")
      .map((row) => row.columns.join(", "))
      .sort(),
    foreignKeys: of("f")
      .map((row) => foreignKey(row.columns, row.foreign_table!, row.foreign_columns, ON_DELETE[row.on_delete]!))
      .sort(),
    indexes: indexes.rows.map((row) => row.def).sort(),
    rowLevelSecurity: rowLevelSecurity(security[0]!.enabled, security[0]!.forced),
    policies: Object.fromEntries(
      policies.rows
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((row) => [
          row.name,
          { as: row.permissive.toLowerCase(), for: row.cmd.toLowerCase(), to: [...row.roles].sort(), using: row.qual, withCheck: row.with_check },
        ]),
    ),
  };
}

const foreignKey = (columns: string[], table: string, foreignColumns: string[], onDelete: string) =>
  `(${columns.join(", ")}) -> ${table} (${foreignColumns.join(", ")}) on delete ${onDelete}`;

/** The SQL of a column's drizzle default, as `ALTER COLUMN ... SET DEFAULT` takes it. */
function defaultOf(column: PgColumn): string | null {
  if (column.default === undefined) return null;
  if (is(column.default, SQL)) return render(column.default);
  const value = column.mapToDriverValue(column.default);
  return typeof value === "string" ? quote(value) : String(value);
}

const indexKey = (column: Partial<IndexedColumn | SQL>) => {
  if (is(column, SQL)) return `(${render(column)})`;
  const { name, indexConfig } = column as IndexedColumn;
  return `${ident(name!)}${indexConfig.order === "desc" ? " DESC" : ""}`;
};

/** A policy's `TO`: role names, or the keywords PostgreSQL takes unquoted. */
function policyRoles(to: PgPolicy["to"]): string {
  if (to === undefined) return "public";
  if (Array.isArray(to)) return to.map(policyRoles).join(", ");
  if (is(to, PgRole)) return ident(to.name);
  return ["public", "current_role", "current_user", "session_user"].includes(to as string) ? (to as string) : ident(to as string);
}

/** The `CREATE POLICY` of a drizzle policy; its expressions must be plain SQL text (a bound value cannot go into DDL). */
function createPolicy(table: string, policy: PgPolicy): string {
  const expression = (fragment: SQL) => {
    const { sql, params } = dialect.sqlToQuery(fragment);
    if (params.length > 0) throw new Error(`policy ${policy.name} on ${table}: its expressions bind values (${params.length}); write them into the SQL`);
    return `(${sql})`;
  };
  return [
    `CREATE POLICY ${ident(policy.name)} ON ${ident(table)}`,
    `AS ${policy.as ?? "permissive"} FOR ${policy.for ?? "all"} TO ${policyRoles(policy.to)}`,
    policy.using ? `USING ${expression(policy.using)}` : "",
    policy.withCheck ? `WITH CHECK ${expression(policy.withCheck)}` : "",
  ].join(" ");
}

/** The drizzle table's shape: its own keys and row-level-security flag, and its defaults, indexes and policies as PostgreSQL prints them once put on the table. */
async function drizzleShape(client: Client, table: PgTable, catalog: TableShape): Promise<TableShape> {
  const config = getTableConfig(table);
  const name = ident(config.name);
  await client.query("BEGIN");
  try {
    for (const column of config.columns) {
      const present = catalog.columns[column.name];
      if (!present || present.generated || present.identity || column.generated || column.generatedIdentity) continue;
      const value = defaultOf(column);
      await client.query(`ALTER TABLE ${name} ALTER COLUMN ${ident(column.name)} ${value === null ? "DROP DEFAULT" : `SET DEFAULT ${value}`}`);
    }
    for (const def of catalog.indexes) await client.query(`DROP INDEX ${/ INDEX (\w+) ON /.exec(def)![1]}`);
    for (const index of config.indexes) {
      const { name: indexName, unique, columns, where } = index.config;
      await client.query(
        `CREATE ${unique ? "UNIQUE " : ""}INDEX ${ident(indexName!)} ON ${name} (${columns.map(indexKey).join(", ")})${where ? ` WHERE ${render(where)}` : ""}`,
      );
    }
    for (const policy of Object.keys(catalog.policies)) await client.query(`DROP POLICY ${ident(policy)} ON ${name}`);
    for (const policy of config.policies) await client.query(createPolicy(config.name, policy));
    const probed = await catalogShape(client, config.name);
    const composite = config.primaryKeys[0]?.columns.map((column) => column.name);
    return {
      columns: Object.fromEntries(
        config.columns.map((column) => [
          column.name,
          {
            type: column.getSQLType(),
            notNull: column.notNull,
            default: probed.columns[column.name]?.default ?? null,
            generated: column.generated && is(column.generated.as, SQL) ? render(column.generated.as) : null,
            identity: column.generatedIdentity?.type ?? null,
            enum: column.enumValues ?? null,
          },
        ]),
      ),
      primaryKey: composite ?? config.columns.filter((column) => column.primary).map((column) => column.name),
      unique: [
        ...config.columns.filter((column) => column.isUnique).map((column) => column.name),
        ...config.uniqueConstraints.map((constraint) => constraint.columns.map((column) => column.name).join(", ")),
      ].sort(),
      foreignKeys: config.foreignKeys
        .map((key) => {
          const reference = key.reference();
          return foreignKey(
            reference.columns.map((column) => column.name),
            getTableConfig(reference.foreignTable).name,
            reference.foreignColumns.map((column) => column.name),
            key.onDelete ?? "no action",
          );
        })
        .sort(),
      indexes: probed.indexes,
      rowLevelSecurity: rowLevelSecurity(config.enableRLS, config.enableRLS),
      policies: probed.policies,
    };
  } finally {
    await client.query("ROLLBACK");
  }
}

describe("the drizzle schema", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    // Its own database: the probe alters tables (then rolls back), which must not lock the shared one.
    ({ database } = await ownDatabase());
  });

  it("has a table for every table the migrations create, and none they do not", async () => {
    const schemaNames = new Set(tables.map((table) => getTableConfig(table).name));
    const catalogNames = new Set(await asRole("migration", catalogTables, database));
    expect({
      "tables without a drizzle schema": [...catalogNames].filter((name) => !schemaNames.has(name)),
      "drizzle tables no migration creates": [...schemaNames].filter((name) => !catalogNames.has(name)),
    }).toEqual({ "tables without a drizzle schema": [], "drizzle tables no migration creates": [] });
  });

  it("equals the migrated catalog, table by table", async () => {
    await asRole(
      "migration",
      async (client) => {
        const present = new Set(await catalogTables(client));
        for (const table of tables) {
          const name = getTableConfig(table).name;
          if (!present.has(name)) continue; // named by the test above
          const catalog = await catalogShape(client, name);
          expect.soft(await drizzleShape(client, table, catalog), `table ${name}`).toEqual(catalog);
        }
      },
      database,
    );
  });
});

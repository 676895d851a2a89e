// Tenant isolation proved with raw SQL as the application role, not only through the API.
import { beforeAll, describe, expect, it } from "vitest";
import { asRole, asTenant } from "../support/sql";
import { seedOrganization, seedToken } from "../support/seed";

// One row per tenant table for an organization `$1`. Every tenant table must appear here: the
// catalog check below fails when a new one is added without it.
const SEED_ROWS: Record<string, string> = {
  activity_daily: `INSERT INTO activity_daily (org_id, env_id, day) VALUES ($1, md5(random()::text), now()::date)`,
  spend_daily: `INSERT INTO spend_daily (org_id, provider, day, month_to_date_micros) VALUES ($1, md5(random()::text), now()::date, 0)`,
  installations: `INSERT INTO installations (org_id, codehost_installation_id, account_login, account_id)
                  VALUES ($1, (random() * 1e12)::bigint, 'acme', 1)`,
  // The installation is the acting organization's own (seeded just above); org_id decides the policy.
  installation_repositories: `INSERT INTO installation_repositories (org_id, installation_id, repository_id, full_name)
                              VALUES ($1, (SELECT id FROM installations WHERE org_id = app_org_id() LIMIT 1), (random() * 1e12)::bigint, 'acme/app')`,
  repository_claims: `INSERT INTO repository_claims (org_id, repository, source) VALUES ($1, 'acme/app-' || md5(random()::text), 'cli')`,
  repository_claim_proofs: `INSERT INTO repository_claim_proofs (org_id, repository, audience_hash, expires_at) VALUES ($1, 'acme/app', md5(random()::text), now() + interval '1 day')`,
  workflow_dispatches: `INSERT INTO workflow_dispatches (org_id, repository, workflow, ref, outcome) VALUES ($1, 'acme/app', 'preview.yml', 'main', 'dispatched')`,
  // The person is the one the transaction names as its lookup (see withPerson).
  memberships: `WITH p AS (INSERT INTO people (id, login) VALUES (app_lookup('person_id')::uuid, 'someone') RETURNING id)
                INSERT INTO memberships (org_id, person_id, role, role_source) SELECT $1, id, 'member', 'sync' FROM p`,
  tokens: `INSERT INTO tokens (org_id, kind, name, token_hash, display_prefix)
           VALUES ($1, 'engine', 'x', md5(random()::text), 'svc_eng_x')`,
  environments: `INSERT INTO environments (org_id, env_id, repository, state, last_event_at)
                 VALUES ($1, 'env-' || md5(random()::text), 'acme/app', 'queued', now())`,
  events: `INSERT INTO events (org_id, id, occurred_at, type) VALUES ($1, md5(random()::text), now(), 'run.started')`,
  workloads: `INSERT INTO workloads (org_id, name) VALUES ($1, 'w-' || md5(random()::text))`,
  workload_versions: `WITH w AS (INSERT INTO workloads (org_id, name) VALUES ($1, 'v-' || md5(random()::text)) RETURNING id)
                      INSERT INTO workload_versions (org_id, workload_id, number, compiled) SELECT $1, id, 1, '{}' FROM w`,
  workload_runs: `WITH w AS (INSERT INTO workloads (org_id, name) VALUES ($1, 'r-' || md5(random()::text)) RETURNING id),
                  v AS (INSERT INTO workload_versions (org_id, workload_id, number, compiled) SELECT $1, id, 1, '{}' FROM w RETURNING id, workload_id)
                  INSERT INTO workload_runs (org_id, env_id, workload_id, version_id, deadline_at) SELECT $1, 'e', workload_id, id, now() FROM v`,
  runtime_commands: `INSERT INTO runtime_commands (org_id, env_id, kind) VALUES ($1, 'e', 'teardown')`,
  invitations: `INSERT INTO invitations (org_id, email, role, token_hash, expires_at)
                VALUES ($1, 'x@example.com', 'member', md5(random()::text), now() + interval '1 day')`,
  audit_log: `INSERT INTO audit_log (org_id, seq, action, actor_label, hash) VALUES ($1, 1000000 + (random() * 1e6)::int, 'x', 'test', 'h')`,
  billing_customers: `INSERT INTO billing_customers (org_id, customer_id) VALUES ($1, 'cus_' || md5(random()::text))`,
  subscriptions: `INSERT INTO subscriptions (subscription_id, org_id, customer_id, status, event_created, state_rank)
                  VALUES ('sub_' || md5(random()::text), $1, 'cus_x', 'active', now(), 2)`,
  billing_history: `INSERT INTO billing_history (org_id, source, from_plan, to_plan, note) VALUES ($1, 'operator', 'free', 'team', 'x')`,
  data_exports: `INSERT INTO data_exports (org_id, object_key) VALUES ($1, 'data-exports/x.json')`,
  // Called off, so no Cron Trigger run elsewhere in the suite takes it up.
  deletions: `INSERT INTO deletions (org_id, export_token_hash, called_off_at) VALUES ($1, md5(random()::text), now())`,
  deletion_steps: `INSERT INTO deletion_steps (org_id, step, note) VALUES ($1, 'stop', 'x')`,
  // Revoked, so the one-live-key-per-provider index never meets it.
  provider_keys: `INSERT INTO provider_keys (id, org_id, provider, key_version, nonce, ciphertext, last_four, revoked_at)
                  VALUES (gen_random_uuid(), $1, 'chat-provider', 'v1', decode(repeat('00', 12), 'hex'), '\\x00', 'abcd', now())`,
  provider_budgets: `INSERT INTO provider_budgets (org_id, provider, monthly_cap_micros) VALUES ($1, 'chat-provider', 1000000)`,
  provider_spend: `INSERT INTO provider_spend (org_id, provider, month) VALUES ($1, 'chat-provider', date '2001-01-01' + (random() * 1e5)::int)`,
  // Proposals and pull-request checks.
  change_proposals: `INSERT INTO change_proposals (org_id, kind, repository, summary, content, previous_content, proposed_by_label)
                     VALUES ($1, 'masking', 'acme/app', 'x', 'tables: {}', '', 'test')`,
  policy_files: `INSERT INTO policy_files (org_id, kind, content) VALUES ($1, 'masking', 'tables: {}')`,
  pr_commit_approvals: `INSERT INTO pr_commit_approvals (org_id, repository, commit_sha, requested_at) VALUES ($1, 'acme/app', md5(random()::text) || '00000000', now())`,
  pr_credentials: `INSERT INTO pr_credentials (org_id, token_hash, repository, commit_sha, run_id, run_attempt, fork, expires_at)
                   VALUES ($1, md5(random()::text), 'acme/app', md5(random()::text) || '00000000', '1', 1, false, now() + interval '10 minutes')`,
  // Engine records and runtimes.
  engine_runs: `INSERT INTO engine_runs (org_id, run_id, env_id) VALUES ($1, 'run-' || md5(random()::text), 'e')`,
  run_verdicts: `INSERT INTO run_verdicts (org_id, run_id, name, verdict, recorded_at, event_id) VALUES ($1, 'r', 'v-' || md5(random()::text), 'pass', now(), 'x')`,
  run_artifacts: `INSERT INTO run_artifacts (org_id, run_id, name, size_bytes, digest, location, stored_at, event_id)
                  VALUES ($1, 'r', 'a-' || md5(random()::text), 1, 'sha256:00', 's3://b/k', now(), 'x')`,
  goldens: `INSERT INTO goldens (org_id, name, version, digest, published_at, event_id) VALUES ($1, 'g', md5(random()::text), 'sha256:00', now(), 'x')`,
  network_decisions: `INSERT INTO network_decisions (org_id, event_id, occurred_at, env_id, host, port, allowed)
                      VALUES ($1, md5(random()::text), now(), 'e', 'example.com', 443, false)`,
  runtimes: `INSERT INTO runtimes (org_id, name) VALUES ($1, 'rt-' || md5(random()::text))`,
  // A model client's grant: the client is registered (no organization), the person is the transaction's.
  protocol_grants: `WITH id AS (SELECT gen_random_uuid()::text AS v),
                    c AS (INSERT INTO protocol_clients (client_id, client_name, redirect_uris) SELECT v, 'x', ARRAY['https://x.example/cb'] FROM id)
                    INSERT INTO protocol_grants (org_id, person_id, client_id, client_name, redirect_uri, code_challenge, code_hash, code_expires_at)
                    SELECT $1, app_lookup('person_id')::uuid, v, 'x', 'https://x.example/cb', 'c', md5(random()::text), now() FROM id`,
  // A refresh token of such a grant.
  protocol_refresh_tokens: `WITH id AS (SELECT gen_random_uuid()::text AS v),
                    c AS (INSERT INTO protocol_clients (client_id, client_name, redirect_uris) SELECT v, 'x', ARRAY['https://x.example/cb'] FROM id),
                    g AS (INSERT INTO protocol_grants (org_id, person_id, client_id, client_name, redirect_uri, code_challenge, code_hash, code_expires_at)
                          SELECT $1, app_lookup('person_id')::uuid, v, 'x', 'https://x.example/cb', 'c', md5(random()::text), now() FROM id RETURNING id)
                    INSERT INTO protocol_refresh_tokens (token_hash, org_id, grant_id, expires_at) SELECT md5(random()::text), $1, id, now() FROM g`,
};

// A new person per statement, named as the transaction's person lookup so that inserting it is allowed.
const withPerson = (client: { query: (sql: string) => Promise<unknown> }) =>
  client.query("SELECT set_config('app.lookup_person_id', gen_random_uuid()::text, true)");

async function tenantTables(): Promise<string[]> {
  return asRole("superuser", async (client) => {
    const { rows } = await client.query<{ table: string }>(`
      SELECT c.relname AS table FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'org_id' AND NOT a.attisdropped
      WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1`);
    return rows.map((row) => row.table);
  });
}

let a: string;
let b: string;

beforeAll(async () => {
  a = (await seedOrganization("tenant-a")).id;
  b = (await seedOrganization("tenant-b")).id;
  for (const org of [a, b]) {
    await seedToken(org, "engine");
    await asTenant(org, async (client) => {
      await withPerson(client);
      for (const sql of Object.values(SEED_ROWS)) await client.query(sql, [org]);
      await client.query("COMMIT");
    });
  }
});

describe("row-level security as the application role", () => {
  it("covers every tenant table", async () => {
    expect(Object.keys(SEED_ROWS).sort()).toEqual((await tenantTables()).filter((t) => t !== "organizations").sort());
  });

  it("with organization A chosen, shows nothing of B in any tenant table", async () => {
    await asTenant(a, async (client) => {
      for (const table of await tenantTables()) {
        const column = table === "organizations" ? "id" : "org_id";
        const mine = await client.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} = $1`, [a]);
        const theirs = await client.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} = $1`, [b]);
        const all = await client.query(`SELECT count(DISTINCT ${column})::int AS n FROM ${table}`);
        expect({ table, mine: mine.rows[0].n > 0, theirs: theirs.rows[0].n, orgs: all.rows[0].n }).toEqual({ table, mine: true, theirs: 0, orgs: 1 });
      }
    });
  });

  it("with organization A chosen, refuses to write rows for B", async () => {
    for (const [table, sql] of Object.entries(SEED_ROWS)) {
      await asTenant(a, async (client) => {
        await withPerson(client);
        await expect(client.query(sql, [b]), table).rejects.toMatchObject({ code: "42501" });
      });
    }
  });

  it("with organization A chosen, cannot change or delete B's rows", async () => {
    await asTenant(a, async (client) => {
      for (const table of ["installations", "memberships", "tokens", "environments"]) {
        const updated = await client.query(`UPDATE ${table} SET org_id = org_id WHERE org_id = $1`, [b]);
        const deleted = await client.query(`DELETE FROM ${table} WHERE org_id = $1`, [b]);
        expect({ table, updated: updated.rowCount, deleted: deleted.rowCount }).toEqual({ table, updated: 0, deleted: 0 });
      }
    });
  });

  it("with no organization chosen, shows nothing at all", async () => {
    await asTenant(null, async (client) => {
      for (const table of await tenantTables()) {
        const { rows } = await client.query(`SELECT count(*)::int AS n FROM ${table}`);
        expect({ table, n: rows[0].n }).toEqual({ table, n: 0 });
      }
    });
  });

  it("never lets the audit log be changed", async () => {
    for (const sql of ["UPDATE audit_log SET action = 'forged' WHERE org_id = $1", "DELETE FROM audit_log WHERE org_id = $1"]) {
      await asTenant(a, async (client) => {
        await expect(client.query(sql, [a])).rejects.toMatchObject({ code: "42501" });
      });
    }
  });
});

describe("the application role cannot change the schema", () => {
  it("is refused CREATE TABLE and temporary tables", async () => {
    await asRole("app", async (client) => {
      await expect(client.query("CREATE TABLE intruder (id int)")).rejects.toMatchObject({ code: "42501" });
      await expect(client.query("CREATE TEMP TABLE intruder (id int)")).rejects.toMatchObject({ code: "42501" });
      await expect(client.query("ALTER TABLE tokens ADD COLUMN x int")).rejects.toMatchObject({ code: "42501" });
    });
  });

  it("cannot read event partitions directly, only through the protected parent", async () => {
    await asRole("app", async (client) => {
      await expect(client.query("SELECT count(*) FROM events_default")).rejects.toMatchObject({ code: "42501" });
    });
  });
});

describe("the operator role", () => {
  it("reads across tenants and writes nothing", async () => {
    await asRole("operator", async (client) => {
      const { rows } = await client.query("SELECT count(DISTINCT org_id)::int AS n FROM tokens WHERE org_id = ANY($1)", [[a, b]]);
      expect(rows[0].n).toBe(2);
      await expect(client.query("UPDATE organizations SET name = 'x' WHERE id = $1", [a])).rejects.toMatchObject({ code: "42501" });
    });
  });
});

describe("the maintenance role", () => {
  it("sees only overdue workload runs, what the activity rollup reads of yesterday and today, and expired exchange tokens' ids, and no other tenant table", async () => {
    await asRole("maintenance", async (client) => {
      const yesterday = "(now() AT TIME ZONE 'UTC')::date - 1";
      const { rows } = await client.query(`SELECT count(*)::int AS n FROM workload_runs WHERE deadline_at > now() AND requested_at < ${yesterday}`);
      expect(rows[0].n).toBe(0);
      // The activity rollup (migrations/0036): runs and verdicts of yesterday and today, only the columns it counts.
      for (const [table, column] of [
        ["engine_runs", "finished_at"],
        ["run_verdicts", "recorded_at"],
      ]) {
        const old = await client.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} < ${yesterday} OR ${column} IS NULL`);
        expect({ table, n: old.rows[0].n }).toEqual({ table, n: 0 });
      }
      await expect(client.query("SELECT name FROM engine_runs")).rejects.toMatchObject({ code: "42501" });
      await expect(client.query("SELECT detail FROM run_verdicts")).rejects.toMatchObject({ code: "42501" });
      const months = await client.query("SELECT count(*)::int AS n FROM provider_spend WHERE month <> date_trunc('month', now() AT TIME ZONE 'UTC')::date");
      expect(months.rows[0].n).toBe(0);
      // The sweep prunes identity-exchange tokens past their 15 minutes: it sees those rows only, never a hash.
      const live = await client.query("SELECT count(*)::int AS n FROM tokens WHERE binding_id IS NULL OR expires_at > now()");
      expect(live.rows[0].n).toBe(0);
      await expect(client.query("SELECT token_hash FROM tokens")).rejects.toMatchObject({ code: "42501" });
      await expect(client.query("SELECT count(*) FROM memberships")).rejects.toMatchObject({ code: "42501" });
      await expect(client.query("UPDATE workload_runs SET env_id = 'x'")).rejects.toMatchObject({ code: "42501" });
    });
  });
});

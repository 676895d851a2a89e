// Every list the console shows reads a page as a range of an index, however large the organization
// (issue 36): one organization with 20,000 rows in each listed table beside a few small ones, then
// PostgreSQL's plan (EXPLAIN) of each list's own query, as the application role acting as that
// organization, for the first page and a page deep in the list. A sequential scan of a large table fails.
// The workload claim likewise: it reads a row or two however many runs wait in the environment.
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { inTenant, type Tx } from "../../db/transaction";
import { auditPage } from "../../worker/audit/procedures";
import { billingHistoryPage } from "../../worker/billing/procedures";
import { environmentsPage } from "../../worker/environments/read";
import { exportsPage } from "../../worker/exports/procedures";
import { PAGE_DEFAULT } from "../../worker/http/paging";
import { commitApprovalsPage } from "../../worker/pr-checks/approvals";
import { invitationsPage } from "../../worker/invitations/procedures";
import { membersPage } from "../../worker/members/procedures";
import { proposalsPage } from "../../worker/proposals/store";
import { decisionsPage, runsPage } from "../../worker/records/read";
import { tokensPage } from "../../worker/tokens/procedures";
import { workloadRunsPage } from "../../worker/workloads/run-procedures";
import { ownDatabase, type OwnDatabase } from "../support/own-database";
import { seedOrganization } from "../support/seed";
import { appPool, asRole } from "../support/sql";

const ROWS = 20_000;
/** The tables a large organization fills; a plan must never read one of them whole. */
const LARGE = [
  "environments",
  "engine_runs",
  "run_verdicts",
  "network_decisions",
  "workload_runs",
  "memberships",
  "people",
  "tokens",
  "audit_log",
  "data_exports",
  "billing_history",
  "invitations",
  "change_proposals",
  "pr_commit_approvals",
];

let own: OwnDatabase;
let large: string;
const ENV = "env-1";

/** One organization's rows: `n` of each, spread over ten environments and a year. */
/** The `id` of the first row `query` answers, run as the superuser in this file's database. */
const firstId = (query: string, params: unknown[]) =>
  asRole("superuser", async (client) => (await client.query<{ id: string }>(query, params)).rows[0]!.id, own.database);

async function fill(orgId: string, n: number) {
  await asRole(
    "superuser",
    async (client) => {
      // The rows are made to fit: no foreign-key checks row by row (a superuser's session only).
      await client.query("SET session_replication_role = replica");
      const q = (text: string) => client.query(text, [orgId, n]);
      await q(`WITH p AS (INSERT INTO people (login) SELECT 'p-' || $1::text || '-' || i FROM generate_series(1, $2::int) i RETURNING id)
               INSERT INTO memberships (org_id, person_id, role, role_source, created_at)
               SELECT $1::uuid, id, 'member', 'sync', now() - (row_number() OVER ()) * interval '1 minute' FROM p`);
      await q(`INSERT INTO environments (org_id, env_id, repository, state, last_event_at)
               SELECT $1::uuid, 'env-' || i, 'acme/shop', 'ready', now() - i * interval '1 minute' FROM generate_series(1, $2::int) i`);
      await q(`INSERT INTO engine_runs (org_id, run_id, env_id) SELECT $1::uuid, 'run-' || i, 'env-' || (i % 10 + 1) FROM generate_series(1, $2::int) i`);
      await q(`INSERT INTO run_verdicts (org_id, run_id, name, verdict, recorded_at, event_id)
               SELECT $1::uuid, 'run-' || i, 'check', 'pass', now(), 'v-' || i FROM generate_series(1, $2::int) i`);
      await q(`INSERT INTO network_decisions (org_id, event_id, occurred_at, env_id, host, port, allowed)
               SELECT $1::uuid, 'd-' || i, now() - i * interval '1 second', 'env-' || (i % 10 + 1), 'h.example', 443, i % 3 <> 0 FROM generate_series(1, $2::int) i`);
      await q(`WITH w AS (INSERT INTO workloads (org_id, name) SELECT $1::uuid, 'load' WHERE $2::int > 0 RETURNING id, org_id),
                    v AS (INSERT INTO workload_versions (org_id, workload_id, number, compiled) SELECT org_id, id, 1, '{}' FROM w RETURNING id, workload_id, org_id)
               INSERT INTO workload_runs (org_id, env_id, workload_id, version_id, state, requested_at, deadline_at)
               SELECT v.org_id, 'env-' || (i % 10 + 1), v.workload_id, v.id, 'finished', now() - i * interval '1 minute', now() FROM v, generate_series(1, $2::int) i`);
      await q(`INSERT INTO tokens (org_id, kind, name, token_hash, display_prefix, created_at)
               SELECT $1::uuid, 'engine', 't', 'h-' || $1::text || '-' || i, 'svc_eng_x', now() - i * interval '1 minute' FROM generate_series(1, $2::int) i`);
      await q(`INSERT INTO audit_log (org_id, seq, action, actor_label, hash)
               SELECT $1::uuid, i + 1, 'x.done', 'seed', md5(i::text) FROM generate_series(1, $2::int) i`);
      await q(`INSERT INTO data_exports (org_id, object_key, created_at)
               SELECT $1::uuid, 'k-' || i, now() - i * interval '1 minute' FROM generate_series(1, $2::int) i`);
      await q(`INSERT INTO billing_history (org_id, source, from_plan, to_plan, note)
               SELECT $1::uuid, 'operator', 'free', 'team', '' FROM generate_series(1, $2::int) i`);
      await q(`INSERT INTO invitations (org_id, email, role, token_hash, expires_at, created_at)
               SELECT $1::uuid, 'i-' || i || '@example.com', 'member', 'ih-' || $1::text || '-' || i, now(), now() - i * interval '1 minute'
               FROM generate_series(1, $2::int) i`);
      await q(`INSERT INTO pr_commit_approvals (org_id, repository, commit_sha, requested_at, approved_at)
               SELECT $1::uuid, 'acme/shop', md5(i::text) || lpad(to_hex(i), 8, '0'), now() - i * interval '1 minute',
                      CASE WHEN i % 4 <> 0 THEN now() - i * interval '30 seconds' END
               FROM generate_series(1, $2::int) i`);
      await q(`INSERT INTO change_proposals (org_id, kind, repository, summary, content, previous_content, proposed_by_label, proposed_at)
               SELECT $1::uuid, CASE WHEN i % 2 = 0 THEN 'masking' ELSE 'egress' END, 'acme/shop', 's', '', '', 'seed', now() - i * interval '1 minute'
               FROM generate_series(1, $2::int) i`);
    },
    own.database,
  );
}

beforeAll(async () => {
  own = await ownDatabase();
  large = (await seedOrganization("large", own.database)).id;
  await fill(large, ROWS);
  for (let small = 0; small < 3; small += 1) await fill((await seedOrganization("small", own.database)).id, 5);
  // As autovacuum keeps them in a live database: the planner's statistics of every table.
  await asRole("superuser", (client) => client.query("ANALYZE"), own.database);
}, 120_000);

/** A key deep in a list (the row at position 15,000 in the list's order), read as the list's cursor carries it. */
async function deepKey<K extends unknown[]>(query: string): Promise<K> {
  return asRole("superuser", async (client) => Object.values((await client.query(query, [large])).rows[0]!) as K, own.database);
}

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  Filter?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  Plans?: PlanNode[];
}

/**
 * A table read whole, by its name; a table read through an index whose range the page's key does not
 * bound (the key's row comparison left as a filter, as row-level security leaves one it takes for
 * leaky: a deep page then sifts every row before it), as "<name> (key filtered)".
 */
const scans = (node: PlanNode): string[] => [
  ...(node["Node Type"] === "Seq Scan" && node["Relation Name"] ? [node["Relation Name"]] : []),
  ...(node["Node Type"] !== "Seq Scan" && node["Relation Name"] && node.Filter?.includes("ROW(") ? [`${node["Relation Name"]} (key filtered)`] : []),
  ...(node.Plans ?? []).flatMap(scans),
];

/** The large tables the plan of `query` reads beyond a page: whole, or with the page's key as a filter. */
async function wholeTables(query: (tx: Tx) => SQLWrapper | SQL): Promise<string[]> {
  const pool = appPool(own.database);
  try {
    const { rows } = await inTenant(pool.connect, large, (tx) =>
      tx.execute<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(sql`EXPLAIN (FORMAT JSON) ${query(tx)}`),
    );
    return scans(rows[0]!["QUERY PLAN"][0]!.Plan).filter((read) => LARGE.includes(read.replace(" (key filtered)", "")));
  } finally {
    await pool.end();
  }
}

const DEEP = 15_000;
const limit = PAGE_DEFAULT + 1;

describe("each list's query, on a large organization", () => {
  it("is judged by a check that sees a whole table read, and a page's key left as a filter", async () => {
    expect(await wholeTables(() => sql`SELECT id FROM tokens WHERE name = 'nobody' LIMIT ${limit}`)).toEqual(["tokens"]);
    // A COALESCE in the key: row-level security takes it for leaky, so it cannot bound the index range.
    const [at, id] = await deepKey<[string, string]>(
      `SELECT created_at::text, id::text FROM tokens WHERE org_id = $1 ORDER BY created_at DESC, id DESC OFFSET ${DEEP} LIMIT 1`,
    );
    expect(
      await wholeTables(
        () => sql`SELECT id FROM tokens WHERE org_id = ${large} AND (COALESCE(created_at, created_at), id) < (${at}, ${id})
                  ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
      ),
    ).toEqual(["tokens (key filtered)"]);
  });

  it("environments.list reads an index range, first page and deep", async () => {
    const deep = await deepKey<[string, string]>(
      `SELECT last_event_at::text, env_id FROM environments WHERE org_id = $1 ORDER BY last_event_at DESC, env_id DESC OFFSET ${DEEP} LIMIT 1`,
    );
    expect(await wholeTables(() => environmentsPage(large, null, limit))).toEqual([]);
    expect(await wholeTables(() => environmentsPage(large, deep, limit))).toEqual([]);
  });

  it("runs.list and decisions.list read an index range", async () => {
    const run = await deepKey<[string]>(`SELECT seq FROM engine_runs WHERE org_id = $1 AND env_id = '${ENV}' ORDER BY seq DESC OFFSET 1500 LIMIT 1`);
    const decision = await deepKey<[string]>(`SELECT seq FROM network_decisions WHERE org_id = $1 AND env_id = '${ENV}' ORDER BY seq DESC OFFSET 1500 LIMIT 1`);
    expect(await wholeTables(() => runsPage(large, ENV, null, limit))).toEqual([]);
    expect(await wholeTables(() => runsPage(large, ENV, [Number(run[0])], limit))).toEqual([]);
    for (const filter of [null, "denied"] as const) {
      expect(await wholeTables((tx) => decisionsPage(tx, large, ENV, filter, null, limit))).toEqual([]);
      expect(await wholeTables((tx) => decisionsPage(tx, large, ENV, filter, [Number(decision[0])], limit))).toEqual([]);
    }
  });

  it("workloads.runs reads an index range, for the organization and for one environment", async () => {
    const deep = await deepKey<[string, string]>(
      `SELECT requested_at::text, id::text FROM workload_runs WHERE org_id = $1 ORDER BY requested_at DESC, id DESC OFFSET ${DEEP} LIMIT 1`,
    );
    for (const envId of [undefined, ENV]) {
      expect(await wholeTables((tx) => workloadRunsPage(tx, large, envId, null, limit))).toEqual([]);
      expect(await wholeTables((tx) => workloadRunsPage(tx, large, envId, deep, limit))).toEqual([]);
    }
  });

  it("members.list, tokens.list and exports.list read an index range", async () => {
    const member = await deepKey<[string, string]>(
      `SELECT created_at::text, person_id::text FROM memberships WHERE org_id = $1 ORDER BY created_at, person_id OFFSET ${DEEP} LIMIT 1`,
    );
    const token = await deepKey<[string, string]>(
      `SELECT created_at::text, id::text FROM tokens WHERE org_id = $1 ORDER BY created_at DESC, id DESC OFFSET ${DEEP} LIMIT 1`,
    );
    const taken = await deepKey<[string, string]>(
      `SELECT created_at::text, id::text FROM data_exports WHERE org_id = $1 ORDER BY created_at DESC, id DESC OFFSET ${DEEP} LIMIT 1`,
    );
    expect(await wholeTables((tx) => membersPage(tx, large, null, limit))).toEqual([]);
    expect(await wholeTables((tx) => membersPage(tx, large, member, limit))).toEqual([]);
    expect(await wholeTables((tx) => tokensPage(tx, large, null, limit))).toEqual([]);
    expect(await wholeTables((tx) => tokensPage(tx, large, token, limit))).toEqual([]);
    expect(await wholeTables((tx) => exportsPage(tx, large, null, limit))).toEqual([]);
    expect(await wholeTables((tx) => exportsPage(tx, large, taken, limit))).toEqual([]);
  });

  it("audit.list and billing.history read an index range", async () => {
    const history = await deepKey<[string]>(`SELECT id FROM billing_history WHERE org_id = $1 ORDER BY id DESC OFFSET ${DEEP} LIMIT 1`);
    expect(await wholeTables((tx) => auditPage(tx, large, null, limit))).toEqual([]);
    expect(await wholeTables((tx) => auditPage(tx, large, [ROWS - DEEP], limit))).toEqual([]);
    expect(await wholeTables((tx) => billingHistoryPage(tx, large, null, limit))).toEqual([]);
    expect(await wholeTables((tx) => billingHistoryPage(tx, large, [Number(history[0])], limit))).toEqual([]);
  });

  it("invitations.list, masking.proposals and network.proposals read an index range", async () => {
    const invitation = await deepKey<[string, string]>(
      `SELECT created_at::text, id::text FROM invitations WHERE org_id = $1 ORDER BY created_at DESC, id DESC OFFSET ${DEEP} LIMIT 1`,
    );
    expect(await wholeTables((tx) => invitationsPage(tx, large, null, limit))).toEqual([]);
    expect(await wholeTables((tx) => invitationsPage(tx, large, invitation, limit))).toEqual([]);
    for (const kind of ["masking", "egress"] as const) {
      const proposal = await deepKey<[string, string]>(
        `SELECT proposed_at::text, id::text FROM change_proposals WHERE org_id = $1 AND kind = '${kind}' ORDER BY proposed_at DESC, id DESC OFFSET ${DEEP / 2} LIMIT 1`,
      );
      expect(await wholeTables((tx) => proposalsPage(tx, large, kind, null, limit))).toEqual([]);
      expect(await wholeTables((tx) => proposalsPage(tx, large, kind, proposal, limit))).toEqual([]);
    }
  });

  it("pullRequests.commits reads an index range, among the waiting commits and among the approved", async () => {
    const waiting = await deepKey<[number, string, string, string]>(
      `SELECT 1, requested_at::text, repository_key, commit_sha FROM pr_commit_approvals WHERE org_id = $1 AND approved_at IS NULL
       ORDER BY requested_at DESC, repository_key DESC, commit_sha DESC OFFSET ${DEEP / 8} LIMIT 1`,
    );
    const approved = await deepKey<[number, string, string, string]>(
      `SELECT 0, approved_at::text, repository_key, commit_sha FROM pr_commit_approvals WHERE org_id = $1 AND approved_at IS NOT NULL
       ORDER BY approved_at DESC, repository_key DESC, commit_sha DESC OFFSET ${DEEP / 2} LIMIT 1`,
    );
    for (const after of [null, waiting, approved]) expect(await wholeTables((tx) => commitApprovalsPage(tx, large, after, limit))).toEqual([]);
  });
});

describe("the workload claim, with thousands of runs waiting and held in one environment", () => {
  it("reads the oldest requested run and the lapsed leases, not every waiting and held run", async () => {
    const env = "env-claim";
    // 2,000 runs held by engines (requested first, so ahead of the waiting ones), two of them with a
    // lapsed lease, then 2,000 requested: what a backlog being claimed oldest first looks like.
    await asRole(
      "superuser",
      async (client) => {
        await client.query(
          `INSERT INTO workload_runs (org_id, env_id, workload_id, version_id, state, requested_at, deadline_at, lease_id, lease_expires_at, claims)
           SELECT r.org_id, $2, r.workload_id, r.version_id, CASE WHEN i <= 2000 THEN 'accepted' ELSE 'requested' END,
                  now() - interval '1 hour' + i * interval '1 millisecond', now() + interval '15 minutes',
                  CASE WHEN i <= 2000 THEN gen_random_uuid() END,
                  CASE WHEN i <= 2000 THEN now() + CASE WHEN i % 1000 = 500 THEN interval '-1 minute' ELSE interval '1 minute' END END,
                  CASE WHEN i <= 2000 THEN 1 ELSE 0 END
           FROM (SELECT org_id, workload_id, version_id FROM workload_runs WHERE org_id = $1 LIMIT 1) r, generate_series(1, 4000) i`,
          [large, env],
        );
        await client.query("ANALYZE workload_runs");
      },
      own.database,
    );
    const oldestLapsed = await firstId(
      "SELECT id FROM workload_runs WHERE org_id = $1 AND env_id = $2 AND state = 'accepted' AND lease_expires_at <= now() ORDER BY requested_at, id LIMIT 1",
      [large, env],
    );
    const { read, taken } = await claimFrom(large, env);
    expect(Number(read.seq_scan)).toBe(0);
    // The oldest requested, the oldest lapsed, the run taken again by the UPDATE: a handful, not thousands.
    expect(Number(read.idx_tup_fetch)).toBeLessThanOrEqual(6);
    // The oldest it may take: the run whose lease lapsed first, ahead of every requested one.
    expect(taken).toBe(oldestLapsed);
  });

  it("reads as few from a burst of requests the planner's statistics have not seen yet", async () => {
    // A new organization's 4,000 runs requested at once, not analyzed: the planner expects one. On such
    // statistics the claim's UPDATE once found its run by reading every run of the organization.
    const { orgId, oldest } = await requestedAtOnce("burst", "env-burst");
    const { read, taken } = await claimFrom(orgId, "env-burst");
    expect(Number(read.seq_scan)).toBe(0);
    expect(Number(read.idx_tup_fetch)).toBeLessThanOrEqual(6);
    expect(taken).toBe(oldest);
  });

  it("reads as few from a backlog on statistics taken while many leases had lapsed", async () => {
    // Statistics that say many held runs have a lapsed lease (taken during an outage of engines; or
    // none at all, on a table not analyzed yet): the planner looked for the oldest lapsed one in the
    // claim's order, without a sort, through the index of every run of the environment, and read each
    // of its 4,000 waiting runs on every claim (bench:backlog, 1.5x). Held runs have an index of their
    // own in that order now (migrations/0047). Planning may probe an index's ends: a few rows more.
    const { orgId, oldest } = await requestedAtOnce("backlog", "env-backlog");
    const superuser = (text: string, params: unknown[] = []) => asRole("superuser", (client) => client.query(text, params), own.database);
    await superuser(
      `INSERT INTO workload_runs (org_id, env_id, workload_id, version_id, state, requested_at, deadline_at, lease_id, lease_expires_at, claims)
       SELECT r.org_id, 'env-outage', r.workload_id, r.version_id, 'accepted', now() - interval '2 hours', now() + interval '1 hour',
              gen_random_uuid(), now() - interval '1 minute', 1
       FROM (SELECT org_id, workload_id, version_id FROM workload_runs WHERE org_id = $1 LIMIT 1) r, generate_series(1, 20000) i`,
      [orgId],
    );
    await superuser("ANALYZE workload_runs");
    await superuser("DELETE FROM workload_runs WHERE env_id = 'env-outage'");
    try {
      const { read, taken } = await claimFrom(orgId, "env-backlog");
      expect(Number(read.seq_scan)).toBe(0);
      expect(Number(read.idx_tup_fetch)).toBeLessThanOrEqual(20);
      expect(taken).toBe(oldest);
    } finally {
      await superuser("ANALYZE workload_runs");
    }
  });
});

/** A new organization with 4,000 runs of `env` requested at once (not analyzed since), and the oldest of them. */
async function requestedAtOnce(slug: string, env: string): Promise<{ orgId: string; oldest: string }> {
  const orgId = (await seedOrganization(slug, own.database)).id;
  await fill(orgId, 1);
  const oldest = await firstId(
    `WITH made AS (
       INSERT INTO workload_runs (org_id, env_id, workload_id, version_id, requested_at, deadline_at)
       SELECT r.org_id, $2, r.workload_id, r.version_id, now() - interval '1 hour' + i * interval '1 millisecond', now() + interval '1 hour'
       FROM (SELECT org_id, workload_id, version_id FROM workload_runs WHERE org_id = $1 LIMIT 1) r, generate_series(1, 4000) i
       RETURNING id, requested_at
     )
     SELECT id FROM made ORDER BY requested_at, id LIMIT 1`,
    [orgId, env],
  );
  return { orgId, oldest };
}

/**
 * The claim as the environment's object sends it (svc_claim_run, planned inside a function, so read by
 * the rows it fetched: the transaction's own statistics of workload_runs), with a claim id as an engine
 * may send one, for an admitted token; rolled back.
 */
function claimFrom(orgId: string, env: string) {
  return asRole(
    "app",
    async (client) => {
      await client.query("BEGIN");
      try {
        await client.query("SELECT set_config('app.org_id', $1, true), set_config('app.admitted_token', gen_random_uuid()::text, true)", [orgId]);
        const claimed = await client.query<{ id: string }>("SELECT id FROM svc_claim_run($1, $2, gen_random_uuid(), 60, 900)", [orgId, env]);
        const stats = await client.query<{ seq_scan: string; seq_tup_read: string; idx_tup_fetch: string }>(
          "SELECT seq_scan, seq_tup_read, idx_tup_fetch FROM pg_stat_xact_user_tables WHERE relname = 'workload_runs'",
        );
        return { read: stats.rows[0]!, taken: claimed.rows[0]!.id };
      } finally {
        await client.query("ROLLBACK");
      }
    },
    own.database,
  );
}

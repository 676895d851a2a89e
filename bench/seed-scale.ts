// A year of data for `bench:scale`, written set-based (INSERT ... SELECT FROM generate_series) as the
// superuser of the benchmark's own PostgreSQL (a temporary directory, never the developer's .data):
// one organization with the counts of `Counts` and, beside it, small organizations with a member, two
// environments and a tenth of the events. What the Worker's own code would write first is written by
// it: the organization (its first audit entry), the owner, the workloads, the event partitions (the
// partition pass, run for each month). The audit log continues the organization's hash chain in SQL,
// each entry hashed as worker/audit/append.ts hashes it (`chainText`), so `audit.verify` holds.
// Everything ends with VACUUM ANALYZE, so the real queries get the plans they get on such a database,
// and autovacuum, which a bulk load wakes, does not work through the fresh tables while figures are taken.
import { type SQL, sql } from "drizzle-orm";
import { withNodeDb, type nodePool } from "../db/node-pool";
import { type Db, inTenant } from "../db/transaction";
import type { LocalStack } from "../local/stack";
import { runPartitionPass } from "../worker/events/partitions/pass";
import { createOrganization } from "../worker/organizations/store";
import { upsertCodehostPerson } from "../worker/people/store";
import { defineWorkload } from "../worker/workloads/requests";
import type { Counts } from "./figures";

export interface Seeded {
  orgId: string;
  slug: string;
  ownerId: string;
  /** The environment that holds a fifth of the runs (the busiest page). */
  busyEnvId: string;
  /** A finished run with its verdicts and artifact. */
  runId: string;
  /** Rows written per table, for the printout. */
  rows: Record<string, number>;
  seconds: number;
}

const DAY_SECONDS = 86_400;

/** Seeds one organization named `label` (and `counts.smallOrganizations` beside it); `codehostBase` keeps people's numeric ids apart. */
export async function seedYear(
  stack: LocalStack,
  pool: ReturnType<typeof nodePool>,
  label: string,
  counts: Counts,
  codehostBase: number,
  progress: (line: string) => void = () => {},
): Promise<Seeded> {
  const started = performance.now();
  const org = await createOrganization(pool.connect, { slug: label, actorLabel: "bench", plan: "enterprise" });
  const ownerId = await upsertCodehostPerson(pool.connect, { id: codehostBase, login: `${label}-owner`, name: "Bench Owner", email: null, avatarUrl: null });
  const workloads = await inTenant(pool.connect, org.id, async (tx) => {
    const made: Array<{ workloadId: string; versionId: string }> = [];
    for (let i = 0; i < 5; i++) made.push(await defineWorkload(tx, org.id, `workload-${i}`, { steps: ["load", `check-${i}`] }));
    return made;
  });
  // Every month of the year gets its partition the way the daily pass makes them (it makes a month and the three after it).
  await withNodeDb(stack.urls.maintenance, "svc_maintenance", async (db) => {
    for (let back = counts.months - 1; back >= 0; back--) {
      const now = new Date();
      await runPartitionPass(db, { now: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1)), retentionMonths: null, archive: null });
    }
  });

  const rows: Record<string, number> = {};
  await withNodeDb(stack.superuserUrl, null, async (db) => {
    const step = async (table: string, statement: SQL) => {
      const at = performance.now();
      const { rowCount } = await db.execute(statement);
      rows[table] = (rows[table] ?? 0) + (rowCount ?? 0);
      progress(`  ${table}: ${rowCount} rows, ${((performance.now() - at) / 1000).toFixed(1)} s`);
    };
    await db.execute(sql`SET synchronous_commit = off`);
    await db.execute(sql`INSERT INTO memberships (org_id, person_id, role, role_source) VALUES (${org.id}, ${ownerId}, 'owner', 'bootstrap')`);

    const small = await db.execute<{ id: string }>(
      sql`INSERT INTO organizations (id, slug, name, plan, created_at)
       SELECT gen_random_uuid(), ${label}::text || '-small-' || n, 'Small ' || n, 'free', now() - make_interval(days => n % 365)
       FROM generate_series(1, ${counts.smallOrganizations}::int) AS n RETURNING id`,
    );
    rows.organizations = 1 + small.rowCount!;
    const smallIds = small.rows.map((row) => row.id);
    await step(
      "people",
      sql`INSERT INTO people (codehost_user_id, login, name, created_at)
       SELECT ${codehostBase}::bigint + n, ${label}::text || '-person-' || n, 'Person ' || n, now() - make_interval(days => n % 365) FROM generate_series(1, ${counts.members}::int + ${smallIds.length}::int) AS n`,
    );
    await step(
      "memberships",
      sql`INSERT INTO memberships (org_id, person_id, role, role_source, created_at)
       SELECT CASE WHEN n <= ${counts.members}::int THEN ${org.id}::uuid ELSE (${sql.param(smallIds)}::uuid[])[n - ${counts.members}::int] END, p.id,
              CASE WHEN n > ${counts.members}::int THEN 'owner' WHEN n % 50 = 0 THEN 'admin' WHEN n % 10 = 0 THEN 'viewer' ELSE 'member' END,
              CASE WHEN n > ${counts.members}::int THEN 'bootstrap' ELSE 'sync' END, p.created_at
       FROM generate_series(1, ${counts.members}::int + cardinality(${sql.param(smallIds)}::uuid[])) AS n JOIN people p ON p.codehost_user_id = ${codehostBase}::bigint + n`,
    );
    await step(
      "environments",
      sql`INSERT INTO environments (org_id, env_id, repository, branch, pull_request, state, last_sequence, last_event_at, started_at, ttl_seconds, expires_at, created_at, updated_at)
       SELECT o.org_id, 'env-' || lpad(n::text, 5, '0'), 'acme/shop', 'feature-' || n, CASE WHEN n % 3 = 0 THEN n END,
              (ARRAY['ready', 'sleeping', 'torn_down', 'failed', 'ready'])[1 + n % 5], n,
              now() - make_interval(mins => n), now() - make_interval(mins => n + 60), 86400, now() - make_interval(mins => n) + interval '1 day',
              now() - make_interval(mins => n + 60), now() - make_interval(mins => n)
       FROM (SELECT ${org.id}::uuid AS org_id, ${counts.environments}::int AS count UNION ALL SELECT unnest(${sql.param(smallIds)}::uuid[]), 2) AS o, generate_series(0, o.count - 1) AS n`,
    );

    // Events: a tenth of them the small organizations', spread over each month of the year up to now.
    const now = new Date();
    const perMonth = Math.ceil(counts.events / counts.months);
    for (let back = counts.months - 1; back >= 0; back--) {
      const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1));
      const to = new Date(Math.min(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back + 1, 1), now.getTime()));
      await step(
        "events",
        sql`INSERT INTO events (org_id, id, occurred_at, type, env_id, sequence, payload, received_at)
         SELECT CASE WHEN n % 10 = 0 AND cardinality(${sql.param(smallIds)}::uuid[]) > 0 THEN (${sql.param(smallIds)}::uuid[])[1 + (n / 10) % cardinality(${sql.param(smallIds)}::uuid[])] ELSE ${org.id}::uuid END,
                gen_random_uuid()::text, t,
                (ARRAY['run.started', 'run.finished', 'verdict.recorded', 'network.decision', 'engine.progress', 'environment.ready'])[1 + n % 6],
                'env-' || lpad(((n::bigint * 7919) % ${counts.environments}::int)::text, 5, '0'), n,
                jsonb_build_object('runId', 'run-' || (n % ${counts.engineRuns}::int), 'step', 'load', 'durationMs', n % 5000), t
         FROM generate_series(1, ${perMonth}::int) AS n, LATERAL (SELECT ${from.toISOString()}::timestamptz + make_interval(secs => n * ${(to.getTime() - from.getTime()) / 1000 / (perMonth + 1)}::double precision) AS t) AS at`,
      );
    }

    // Engine runs over the year, oldest first (so `seq` follows time); a fifth of them in the busy environment.
    const yearSeconds = 365 * DAY_SECONDS;
    await step(
      "engine_runs",
      sql`INSERT INTO engine_runs (org_id, run_id, env_id, name, runtime, started_at, started_event_id, finished_at, finished_event_id, outcome, duration_ms, created_at, updated_at)
       SELECT ${org.id}, 'run-' || n, CASE WHEN n % 5 = 0 THEN 'env-00000' ELSE 'env-' || lpad((n % ${counts.environments}::int)::text, 5, '0') END, 'checkout flow', 'linux-x64',
              t, 'ev-s-' || n, t + interval '90 seconds', 'ev-f-' || n, (ARRAY['passed', 'failed', 'errored', 'passed'])[1 + n % 4], 90000, t, t
       FROM generate_series(1, ${counts.engineRuns}::int) AS n, LATERAL (SELECT now() - make_interval(secs => (${counts.engineRuns}::int - n + 1) * ${yearSeconds / counts.engineRuns}::double precision) AS t) AS at
       ORDER BY n`,
    );
    await step(
      "run_verdicts",
      sql`INSERT INTO run_verdicts (org_id, run_id, name, verdict, detail, recorded_at, event_id)
       SELECT r.org_id, r.run_id, (ARRAY['build', 'test', 'lint', 'visual', 'perf'])[k], (ARRAY['pass', 'fail', 'warn', 'pass', 'skip'])[k],
              'checked ' || k, r.finished_at, 'ev-v-' || r.run_id || '-' || k
       FROM engine_runs r, generate_series(1, ${counts.verdictsPerRun}::int) AS k WHERE r.org_id = ${org.id}`,
    );
    await step(
      "run_artifacts",
      sql`INSERT INTO run_artifacts (org_id, run_id, name, size_bytes, digest, location, content_type, stored_at, event_id)
       SELECT org_id, run_id, 'report.html', 20480, 'sha256:' || md5(run_id) || md5(run_id), 'r2://artifacts/' || run_id || '/report.html', 'text/html',
              finished_at, 'ev-a-' || run_id
       FROM engine_runs WHERE org_id = ${org.id}`,
    );
    await step(
      "network_decisions",
      sql`INSERT INTO network_decisions (org_id, event_id, occurred_at, env_id, run_id, host, port, allowed, rule)
       SELECT r.org_id, 'ev-n-' || r.run_id || '-' || k, r.started_at + make_interval(secs => k), r.env_id, r.run_id,
              (ARRAY['registry.npmjs.org', 'api.stripe.com', 'tracker.example'])[1 + k % 3], 443, k % 3 <> 2, 'default'
       FROM engine_runs r, generate_series(1, ${counts.decisionsPerRun}::int) AS k WHERE r.org_id = ${org.id} ORDER BY r.started_at, k`,
    );
    await step(
      "workload_runs",
      sql`INSERT INTO workload_runs (org_id, env_id, workload_id, version_id, state, requested_at, deadline_at, lease_ids, claims, abandon_reason, started_at, ended_at)
       SELECT ${org.id}, 'env-' || lpad((n % ${counts.environments}::int)::text, 5, '0'), (${sql.param(workloads.map((w) => w.workloadId))}::uuid[])[1 + n % 5], (${sql.param(workloads.map((w) => w.versionId))}::uuid[])[1 + n % 5],
              CASE n % 50 WHEN 0 THEN 'abandoned' WHEN 1 THEN 'cancelled' ELSE 'finished' END, t, t + interval '1 hour',
              CASE WHEN n % 50 = 0 THEN '{}'::uuid[] ELSE ARRAY[gen_random_uuid()] END, CASE WHEN n % 50 = 0 THEN 0 ELSE 1 END,
              CASE WHEN n % 50 = 0 THEN 'never_claimed' END, CASE WHEN n % 50 <> 0 THEN t + interval '1 minute' END, t + interval '10 minutes'
       FROM generate_series(1, ${counts.workloadRuns}::int) AS n, LATERAL (SELECT now() - make_interval(secs => (${counts.workloadRuns}::int - n + 1) * ${yearSeconds / counts.workloadRuns}::double precision) AS t) AS at`,
    );
    // Tokens: most of them the expired 15-minute engine tokens of identity exchanges, a tenth CLI tokens (each acts for a person).
    await step(
      "tokens",
      sql`INSERT INTO tokens (org_id, kind, name, token_hash, display_prefix, created_by, person_id, expires_at, last_used_at, created_at)
       SELECT ${org.id}, CASE WHEN n % 10 = 0 THEN 'cli' ELSE 'engine' END, 'token-' || n, h, 'svc_' || left(h, 8), ${ownerId},
              CASE WHEN n % 10 = 0 THEN ${ownerId}::uuid END, t + CASE WHEN n % 10 = 0 THEN interval '30 days' ELSE interval '15 minutes' END,
              t + interval '1 minute', t
       FROM generate_series(1, ${counts.tokens}::int) AS n,
            LATERAL (SELECT encode(sha256(convert_to(${label}::text || '-token-' || n, 'UTF8')), 'hex') AS h, now() - make_interval(secs => (${counts.tokens}::int - n + 1) * ${yearSeconds / counts.tokens}::double precision) AS t) AS v`,
    );
    await step(
      "data_exports",
      sql`INSERT INTO data_exports (org_id, object_key, size_bytes, requested_by, created_at, completed_at)
       SELECT ${org.id}::uuid, 'data-exports/' || ${org.id}::uuid::text || '/' || gen_random_uuid() || '.json', 1048576 * n, ${ownerId}, t, t + interval '1 minute'
       FROM generate_series(1, ${counts.dataExports}::int) AS n, LATERAL (SELECT now() - make_interval(days => ${counts.dataExports}::int - n + 1) AS t) AS v`,
    );
    await step(
      "billing_history",
      sql`INSERT INTO billing_history (org_id, at, source, event_id, subscription_id, status, from_plan, to_plan, note)
       SELECT ${org.id}, now() - make_interval(days => ${counts.billingHistory}::int - n + 1), 'provider', 'evt_' || n, 'sub_bench', 'active',
              CASE WHEN n % 2 = 0 THEN 'team' ELSE 'enterprise' END, CASE WHEN n % 2 = 0 THEN 'enterprise' ELSE 'team' END, 'subscription updated'
       FROM generate_series(1, ${counts.billingHistory}::int) AS n`,
    );
    await step(
      "invitations",
      sql`INSERT INTO invitations (org_id, email, role, token_hash, invited_by, created_at, expires_at, accepted_at, revoked_at)
       SELECT ${org.id}, ${label}::text || '-invitee-' || n || '@example.com', 'member', encode(sha256(convert_to(${label}::text || '-invitation-' || n, 'UTF8')), 'hex'),
              ${ownerId}, t, t + interval '14 days', CASE WHEN n % 3 = 0 THEN t + interval '1 day' END, CASE WHEN n % 7 = 0 THEN t + interval '2 days' END
       FROM generate_series(1, ${counts.invitations}::int) AS n, LATERAL (SELECT now() - make_interval(secs => (${counts.invitations}::int - n + 1) * ${yearSeconds / counts.invitations}::double precision) AS t) AS v`,
    );
    // Proposals: masking files and egress blocks in turn, most of them decided.
    await step(
      "change_proposals",
      sql`INSERT INTO change_proposals (org_id, kind, repository, summary, content, previous_content, state, proposed_by, proposed_by_label, proposed_at)
       SELECT ${org.id}, CASE WHEN n % 2 = 0 THEN 'masking' ELSE 'egress' END, 'acme/shop', 'change ' || n, '# rules ' || n, '# rules ' || (n - 1),
              CASE WHEN n % 10 = 0 THEN 'proposed' ELSE 'rejected' END, ${ownerId}, ${`${label}-owner`}, t
       FROM generate_series(1, ${counts.proposals}::int) AS n, LATERAL (SELECT now() - make_interval(secs => (${counts.proposals}::int - n + 1) * ${yearSeconds / counts.proposals}::double precision) AS t) AS v`,
    );
    // Fork pull-request commits: a tenth still waiting for approval.
    await step(
      "pr_commit_approvals",
      sql`INSERT INTO pr_commit_approvals (org_id, repository, commit_sha, pull_request, head_repository, requested_at, approved_at, approved_by, approved_by_label)
       SELECT ${org.id}, 'acme/shop', left(encode(sha256(convert_to(${label}::text || '-commit-' || n, 'UTF8')), 'hex'), 40), n, 'forker-' || n || '/shop', t,
              CASE WHEN n % 10 <> 0 THEN t + interval '1 hour' END, CASE WHEN n % 10 <> 0 THEN ${ownerId}::uuid END, CASE WHEN n % 10 <> 0 THEN ${`${label}-owner`} END
       FROM generate_series(1, ${counts.forkCommits}::int) AS n, LATERAL (SELECT now() - make_interval(secs => (${counts.forkCommits}::int - n + 1) * ${yearSeconds / counts.forkCommits}::double precision) AS t) AS v`,
    );
    await seedAuditChain(db, org.id, counts.auditEntries - 1, step);
    await step(
      "site_events",
      sql`INSERT INTO site_events (id, name, session_key, channel, page, received_at)
       SELECT gen_random_uuid(), (ARRAY['page_landed', 'page_landed', 'page_landed', 'signup_reached', 'contact_requested'])[1 + n % 5],
              encode(sha256(convert_to('session-' || (n / 4), 'UTF8')), 'hex'),
              (ARRAY['direct', 'search', 'social', 'email', 'referral', 'campaign', 'internal'])[1 + n % 7], '/pricing',
              date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '1 day' + make_interval(secs => n * ${DAY_SECONDS / counts.beaconEvents}::double precision)
       FROM generate_series(0, ${counts.beaconEvents}::int - 1) AS n`,
    );
    const at = performance.now();
    await db.execute(sql`VACUUM ANALYZE`);
    progress(`  VACUUM ANALYZE: ${((performance.now() - at) / 1000).toFixed(1)} s`);
  });
  return {
    orgId: org.id,
    slug: label,
    ownerId,
    busyEnvId: "env-00000",
    runId: `run-${Math.max(5, Math.floor(counts.engineRuns / 5) * 5)}`,
    rows,
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * `entries` more entries of the organization's audit chain, after its last one: a recursive query
 * hashes each entry as `chainText` does (the JSON array of the stored fields, keys sorted, no spaces;
 * timestamps as STORED_TIME writes them) with the hash before it, one microsecond apart.
 */
async function seedAuditChain(db: Db, orgId: string, entries: number, step: (table: string, statement: SQL) => Promise<void>) {
  if (entries <= 0) return;
  const { rows } = await db.execute<{ last: string }>(sql`SELECT max(seq) AS last FROM audit_log WHERE org_id = ${orgId}`);
  const until = Number(rows[0]!.last) + entries;
  await step(
    "audit_log",
    sql`INSERT INTO audit_log (org_id, seq, action, actor_label, target, data, prev_hash, hash, created_at)
     WITH RECURSIVE chain (seq, hash, created_at, action, target, prev_hash) AS (
       (SELECT seq, hash, created_at, NULL::text, NULL::text, NULL::text FROM audit_log WHERE org_id = ${orgId}::uuid ORDER BY seq DESC LIMIT 1)
       UNION ALL
       SELECT v.seq, encode(sha256(convert_to(format('[%s,%s,%s,%s,null,"bench",%s,{"n":%s},%s]',
                to_json(c.hash)::text, v.seq, to_json(${orgId}::uuid::text)::text, to_json(v.action)::text, to_json(v.target)::text, v.seq,
                to_json(to_char(v.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))::text), 'UTF8')), 'hex'),
              v.at, v.action, v.target, c.hash
       FROM chain AS c,
            LATERAL (SELECT c.seq + 1 AS seq, c.created_at + interval '1 microsecond' AS at,
                            (ARRAY['member.role_changed', 'token.created', 'environment.created', 'session.started'])[1 + (c.seq + 1) % 4] AS action,
                            'target-' || (c.seq + 1) AS target) AS v
       WHERE c.seq < ${until}::bigint
     )
     SELECT ${orgId}::uuid, seq, action, 'bench', target, jsonb_build_object('n', seq), prev_hash, hash, created_at FROM chain WHERE action IS NOT NULL`,
  );
}

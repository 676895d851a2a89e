// The document's list members as SQL, each read in pages in the order of a table's own indexed key
// (a primary key, `seq`, an `(org_id, id)` index), so a page is an index range and an organization with
// thousands of runs streams without holding them all or rescanning them. Every query runs as the organization.
import { type SQL, sql } from "drizzle-orm";
import type { Tx } from "../../db/transaction";
import { STORED_TIME } from "../audit";
import { keyset } from "../http/paging";

const iso = (value: Date | null) => value?.toISOString() ?? null;

type Row = Record<string, any>;

/** One table's rows of a member, in its key's order. */
export interface Part {
  /** The key's columns as the query names them, compared as a row: `(a, b) > (after)`. */
  key: SQL;
  /** The key of a row the query answered (its values in the order of `key`). */
  keyOf: (row: Row) => unknown[];
  /** A page: the organization's rows where `following` holds (true before the first page), ordered by `key`, at most `limit`. */
  sql: (orgId: string, following: SQL, limit: number) => SQL;
  /** Joins a page's rows into the member's items (a workload gathers its versions). */
  rows: (tx: Tx, orgId: string, rows: Row[]) => Promise<unknown[]> | unknown[];
}

/** A member of the document: its parts one after another (credentials are tokens, claims and keys). */
export interface Section {
  name: string;
  parts: readonly Part[];
}

/** The condition for the rows after `after` in `part`'s key order. */
export const following = (part: Part, after: unknown[] | null): SQL => keyset([part.key], after, "asc");

const each = (map: (row: any) => unknown) => (_tx: Tx, _orgId: string, rows: Row[]) => rows.map(map);

export const SECTIONS: readonly Section[] = [
  {
    name: "people",
    parts: [
      {
        key: sql`m.person_id`,
        keyOf: (row) => [row.person_id],
        sql: (
          orgId,
          following,
          limit,
        ) => sql`SELECT m.person_id, p.login, p.name, p.email, m.role, m.created_at FROM memberships m JOIN people p ON p.id = m.person_id
          WHERE m.org_id = ${orgId} AND ${following} ORDER BY m.person_id LIMIT ${limit}`,
        rows: each((row) => ({ login: row.login, name: row.name, email: row.email, role: row.role, joinedAt: row.created_at.toISOString() })),
      },
    ],
  },
  {
    name: "invitations",
    parts: [
      {
        key: sql`i.id`,
        keyOf: (row) => [row.id],
        sql: (orgId, following, limit) => sql`SELECT i.id, i.email, i.role, p.login AS invited_by, i.created_at, i.expires_at,
            CASE WHEN i.accepted_at IS NOT NULL THEN 'accepted' WHEN i.revoked_at IS NOT NULL THEN 'revoked' WHEN i.expires_at <= now() THEN 'expired' ELSE 'pending' END AS state
          FROM invitations i LEFT JOIN people p ON p.id = i.invited_by WHERE i.org_id = ${orgId} AND ${following} ORDER BY i.id LIMIT ${limit}`,
        rows: each((row) => ({
          email: row.email,
          role: row.role,
          state: row.state,
          invitedBy: row.invited_by,
          createdAt: row.created_at.toISOString(),
          expiresAt: row.expires_at.toISOString(),
        })),
      },
    ],
  },
  {
    name: "repositories",
    parts: [
      {
        key: sql`id`,
        keyOf: (row) => [row.id],
        sql: (orgId, following, limit) => sql`SELECT id, repository, 'claim' AS via, created_at AS since, last_used_at, revoked_at
          FROM repository_claims WHERE org_id = ${orgId} AND ${following} ORDER BY id LIMIT ${limit}`,
        rows: each(repository),
      },
      {
        key: sql`installation_id, repository_id`,
        keyOf: (row) => [row.installation_id, row.repository_id],
        sql: (orgId, following, limit) => sql`SELECT installation_id, repository_id, full_name AS repository, 'installation' AS via, added_at AS since,
            NULL::timestamptz AS last_used_at, NULL::timestamptz AS revoked_at
          FROM installation_repositories WHERE org_id = ${orgId} AND ${following} ORDER BY installation_id, repository_id LIMIT ${limit}`,
        rows: each(repository),
      },
    ],
  },
  {
    name: "environments",
    parts: [
      {
        key: sql`env_id`,
        keyOf: (row) => [row.env_id],
        sql: (orgId, following, limit) => sql`SELECT env_id, repository, branch, pull_request, state, started_at, expires_at, last_event_at, preview_urls
          FROM environments WHERE org_id = ${orgId} AND ${following} ORDER BY env_id LIMIT ${limit}`,
        rows: each((row) => ({
          envId: row.env_id,
          repository: row.repository,
          branch: row.branch,
          pullRequest: row.pull_request,
          state: row.state,
          startedAt: iso(row.started_at),
          expiresAt: iso(row.expires_at),
          lastEventAt: row.last_event_at.toISOString(),
          previewUrls: row.preview_urls,
        })),
      },
    ],
  },
  // Engine records: runs by the engine's run id, verdicts by run id and check (their primary keys), runtimes by name.
  {
    name: "runs",
    parts: [
      {
        key: sql`run_id`,
        keyOf: (row) => [row.run_id],
        sql: (orgId, following, limit) => sql`SELECT run_id, env_id, name, runtime, started_at, finished_at, outcome, duration_ms
          FROM engine_runs WHERE org_id = ${orgId} AND ${following} ORDER BY run_id LIMIT ${limit}`,
        rows: each((row) => ({
          runId: row.run_id,
          envId: row.env_id,
          name: row.name,
          runtime: row.runtime,
          startedAt: iso(row.started_at),
          finishedAt: iso(row.finished_at),
          outcome: row.outcome,
          durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
        })),
      },
    ],
  },
  {
    name: "verdicts",
    parts: [
      {
        key: sql`run_id, name`,
        keyOf: (row) => [row.run_id, row.name],
        sql: (orgId, following, limit) => sql`SELECT run_id, name, verdict, detail, recorded_at
          FROM run_verdicts WHERE org_id = ${orgId} AND ${following} ORDER BY run_id, name LIMIT ${limit}`,
        rows: each((row) => ({ runId: row.run_id, name: row.name, verdict: row.verdict, detail: row.detail, recordedAt: row.recorded_at.toISOString() })),
      },
    ],
  },
  {
    name: "runtimes",
    parts: [
      {
        key: sql`name, id`,
        keyOf: (row) => [row.name, row.id],
        sql: (orgId, following, limit) => sql`SELECT id, name, labels, created_at, last_seen_at, removed_at
          FROM runtimes WHERE org_id = ${orgId} AND ${following} ORDER BY name, id LIMIT ${limit}`,
        rows: each((row) => ({
          name: row.name,
          labels: row.labels,
          createdAt: row.created_at.toISOString(),
          lastSeenAt: iso(row.last_seen_at),
          removedAt: iso(row.removed_at),
        })),
      },
    ],
  },
  {
    name: "workloads",
    parts: [
      {
        key: sql`id`,
        keyOf: (row) => [row.id],
        sql: (orgId, following, limit) =>
          sql`SELECT id, name, created_at, archived_at FROM workloads WHERE org_id = ${orgId} AND ${following} ORDER BY id LIMIT ${limit}`,
        rows: async (tx, orgId, rows) => {
          const versions = await tx.execute<{ workload_id: string; number: number; compiled: Record<string, unknown>; created_at: Date }>(
            sql`SELECT workload_id, number, compiled, created_at FROM workload_versions WHERE org_id = ${orgId} AND workload_id = ANY(${sql.param(rows.map((row) => row.id))}) ORDER BY number`,
          );
          return rows.map((row) => ({
            name: row.name,
            createdAt: row.created_at.toISOString(),
            archivedAt: iso(row.archived_at),
            versions: versions.rows
              .filter((version) => version.workload_id === row.id)
              .map((version) => ({ number: version.number, compiled: version.compiled, createdAt: version.created_at.toISOString() })),
          }));
        },
      },
    ],
  },
  {
    name: "workloadRuns",
    parts: [
      {
        key: sql`r.id`,
        keyOf: (row) => [row.id],
        sql: (
          orgId,
          following,
          limit,
        ) => sql`SELECT r.id, w.name AS workload, v.number AS version, r.env_id, r.state, r.requested_at, r.ended_at, r.abandon_reason
          FROM workload_runs r JOIN workloads w ON w.id = r.workload_id JOIN workload_versions v ON v.id = r.version_id
          WHERE r.org_id = ${orgId} AND ${following} ORDER BY r.id LIMIT ${limit}`,
        rows: each((row) => ({
          workload: row.workload,
          version: row.version,
          envId: row.env_id,
          state: row.state,
          requestedAt: row.requested_at.toISOString(),
          endedAt: iso(row.ended_at),
          abandonReason: row.abandon_reason,
        })),
      },
    ],
  },
  // Repository claims, then provider keys, then tokens.
  {
    name: "credentials",
    parts: [
      {
        key: sql`id`,
        keyOf: (row) => [row.id],
        sql: (orgId, following, limit) => sql`SELECT id, 'repository claim' AS kind, repository AS name, NULL AS person, '{}'::text[] AS scopes,
            created_at, last_used_at, NULL::timestamptz AS expires_at, revoked_at
          FROM repository_claims WHERE org_id = ${orgId} AND ${following} ORDER BY id LIMIT ${limit}`,
        rows: each(credential),
      },
      {
        key: sql`k.id`,
        keyOf: (row) => [row.id],
        sql: (orgId, following, limit) => sql`SELECT k.id, 'provider key' AS kind, k.provider || ' (ends ' || k.last_four || ')' AS name, p.login AS person,
            '{}'::text[] AS scopes, k.created_at, NULL::timestamptz AS last_used_at, NULL::timestamptz AS expires_at, k.revoked_at
          FROM provider_keys k LEFT JOIN people p ON p.id = k.created_by WHERE k.org_id = ${orgId} AND ${following} ORDER BY k.id LIMIT ${limit}`,
        rows: each(credential),
      },
      {
        key: sql`t.id`,
        keyOf: (row) => [row.id],
        sql: (
          orgId,
          following,
          limit,
        ) => sql`SELECT t.id, CASE t.kind WHEN 'cli' THEN 'cli token' ELSE 'engine token' END AS kind, t.name, p.login AS person, t.scopes,
            t.created_at, t.last_used_at, t.expires_at, t.revoked_at
          FROM tokens t LEFT JOIN people p ON p.id = t.person_id WHERE t.org_id = ${orgId} AND ${following} ORDER BY t.id LIMIT ${limit}`,
        rows: each(credential),
      },
    ],
  },
  {
    name: "billingHistory",
    parts: [
      {
        key: sql`id`,
        keyOf: (row) => [row.id],
        sql: (orgId, following, limit) =>
          sql`SELECT id, at, source, from_plan, to_plan, status, note FROM billing_history WHERE org_id = ${orgId} AND ${following} ORDER BY id LIMIT ${limit}`,
        rows: each((row) => ({ at: row.at.toISOString(), source: row.source, from: row.from_plan, to: row.to_plan, status: row.status, note: row.note })),
      },
    ],
  },
  {
    name: "auditLog",
    parts: [
      {
        key: sql`seq`,
        keyOf: (row) => [row.seq],
        sql: (orgId, following, limit) => sql`SELECT seq, ${STORED_TIME(sql`created_at`)} AS at, action, actor_label, target, data, hash
          FROM audit_log WHERE org_id = ${orgId} AND ${following} ORDER BY seq LIMIT ${limit}`,
        rows: each((row) => ({
          seq: Number(row.seq),
          at: row.at,
          action: row.action,
          actor: row.actor_label,
          target: row.target,
          data: row.data,
          hash: row.hash,
        })),
      },
    ],
  },
];

function repository(row: Row) {
  return { repository: row.repository, via: row.via, since: row.since.toISOString(), lastUsedAt: iso(row.last_used_at), revokedAt: iso(row.revoked_at) };
}

function credential(row: Row) {
  return {
    kind: row.kind,
    name: row.name,
    person: row.person,
    scopes: row.scopes,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: iso(row.last_used_at),
    expiresAt: iso(row.expires_at),
    revokedAt: iso(row.revoked_at),
  };
}

/** Members whose features do not exist yet, and what is never exported. */
export const NOT_INCLUDED: ReadonlyArray<{ what: string; why: string }> = [
  { what: "engine token values", why: "Only their hashes are stored; a token is shown once, when it is made." },
  { what: "provider key material", why: "Model-provider keys are sealed and never leave the service; the credentials member names them." },
  {
    what: "files before any approval",
    why: "A masking file or egress block nobody approved a proposal for was never set through this service; its path is left out of files.",
  },
  {
    what: "artifacts, goldens, network decisions",
    why: "Engine records beyond runs and verdicts stay readable in the console (runs.get, decisions.list); artifact contents never reach this service.",
  },
  { what: "events", why: "The raw event stream is not part of the document; what it projected (environments, runs) is." },
  {
    what: "names in place of ids inside auditLog",
    why: "Audit entries are exported as recorded (their targets and data may name internal ids), since the hash chain covers exactly that.",
  },
];

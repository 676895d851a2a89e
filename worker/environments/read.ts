// What a person sees of environments: the projected row (preview URLs as the engine reported them)
// and its latest teardown.
import { sql } from "drizzle-orm";
import type { EnvironmentState } from "../../db/schema";
import type { Tx } from "../../db/transaction";
import * as z from "zod";
import { decodeCursor, KeyTime, keyset, type Page, pageOf } from "../http/paging";

interface Row {
  env_id: string;
  state: EnvironmentState;
  repository: string;
  branch: string | null;
  pull_request: number | null;
  started_at: Date | null;
  expires_at: Date | null;
  preview_urls: string[];
  last_event_at: Date;
  last_heard_at: Date;
  created_at: Date;
  teardown_id: string | null;
  teardown_requested_at: Date | null;
  teardown_state: string | null;
  teardown_outcome: string | null;
  teardown_confirmed_at: Date | null;
}

const SELECT_ENVIRONMENTS = sql`
SELECT e.env_id, e.last_event_at::text AS key_at, e.state, e.repository, e.branch, e.pull_request, e.started_at, e.expires_at, e.preview_urls, e.last_event_at, e.created_at,
       -- Its engine's latest event of any type (a run, a verdict, a decision), not only its environment.* ones (index events_env).
       GREATEST(e.last_event_at, (SELECT max(ev.occurred_at) FROM events ev WHERE ev.org_id = e.org_id AND ev.env_id = e.env_id)) AS last_heard_at,
       t.id AS teardown_id, t.created_at AS teardown_requested_at, t.state AS teardown_state, t.outcome AS teardown_outcome,
       t.confirmed_at AS teardown_confirmed_at
FROM environments e
LEFT JOIN LATERAL (
  SELECT id, created_at, state, outcome, confirmed_at FROM runtime_commands c
  WHERE c.org_id = e.org_id AND c.env_id = e.env_id AND c.kind = 'teardown' ORDER BY c.created_at DESC LIMIT 1
) t ON true`;

const iso = (date: Date | null) => date?.toISOString() ?? null;

function view(row: Row) {
  return {
    envId: row.env_id,
    state: row.state,
    repository: row.repository,
    branch: row.branch,
    pullRequest: row.pull_request,
    startedAt: iso(row.started_at),
    expiresAt: iso(row.expires_at),
    previewUrls: row.preview_urls,
    lastEventAt: row.last_event_at.toISOString(),
    /** When its engine last reported anything about it (runs, verdicts and decisions included). */
    lastHeardAt: row.last_heard_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    // The engine's environment.torn_down event confirms a teardown; until then it says it is unconfirmed.
    teardown: row.teardown_id
      ? {
          commandId: row.teardown_id,
          requestedAt: row.teardown_requested_at!.toISOString(),
          state: row.teardown_state,
          outcome: row.teardown_outcome,
          confirmed: row.teardown_confirmed_at !== null,
        }
      : null,
  };
}

export type EnvironmentView = ReturnType<typeof view>;

/** A list page's key: when the environment was last heard from, then its envId (index environments_recent). */
export const EnvironmentKey = [KeyTime, z.string()] as const;

/** `text` as a LIKE pattern that finds it anywhere: its own `%`, `_` and `\` matched as themselves. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;

/** A page of the organization's environments, most recently heard from first, after `after`'s key, narrowed by `filter`. */
export const environmentsPage = (orgId: string, after: readonly [string, string] | null, limit: number, { state, search }: EnvironmentFilter = {}) =>
  sql`${SELECT_ENVIRONMENTS} WHERE e.org_id = ${orgId} AND ${keyset([sql`e.last_event_at`, sql`e.env_id`], after, "desc")}
      ${state ? sql`AND e.state = ${state}` : sql``}
      ${search ? sql`AND (e.env_id ILIKE ${containing(search)} OR e.repository ILIKE ${containing(search)} OR e.branch ILIKE ${containing(search)})` : sql``}
      ORDER BY e.last_event_at DESC, e.env_id DESC LIMIT ${limit}`;

/** What a list may be narrowed to: one state, and text found in the envId, repository or branch (case ignored). */
export interface EnvironmentFilter {
  state?: EnvironmentState | undefined;
  search?: string | undefined;
}

export async function listEnvironments(
  tx: Tx,
  orgId: string,
  cursor: string | undefined,
  limit: number,
  filter: EnvironmentFilter = {},
): Promise<Page<EnvironmentView>> {
  const { rows } = await tx.execute<Row & { key_at: string }>(environmentsPage(orgId, decodeCursor(cursor, EnvironmentKey), limit + 1, filter));
  return pageOf(rows, limit, (row) => [row.key_at, row.env_id], view);
}

/** One environment as its page shows it: the list's view, and why it failed when it did. */
export type OneEnvironment = EnvironmentView & { failure: Awaited<ReturnType<typeof failureOf>> };

export async function findEnvironment(tx: Tx, orgId: string, envId: string): Promise<OneEnvironment | null> {
  const { rows } = await tx.execute<Row>(sql`${SELECT_ENVIRONMENTS} WHERE e.org_id = ${orgId} AND e.env_id = ${envId}`);
  if (!rows[0]) return null;
  return { ...view(rows[0]), failure: rows[0].state === "failed" ? await failureOf(tx, orgId, envId) : null };
}

/**
 * Why a failed environment failed, as its latest environment.failed event says (the event's own
 * payload, kept in `events`; index events_env): the engine's reason and the workflow run whose log
 * tells more, each null when the engine sent none.
 */
async function failureOf(tx: Tx, orgId: string, envId: string) {
  const { rows } = await tx.execute<{ reason: string | null; workflow_run_url: string | null; occurred_at: Date }>(sql`
    SELECT payload->>'reason' AS reason, payload->>'workflow_run_url' AS workflow_run_url, occurred_at FROM events
    WHERE org_id = ${orgId} AND env_id = ${envId} AND type = 'environment.failed' ORDER BY occurred_at DESC LIMIT 1`);
  const row = rows[0];
  return row ? { reason: row.reason, workflowRunUrl: row.workflow_run_url, at: row.occurred_at.toISOString() } : null;
}

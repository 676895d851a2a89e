// A proposal's effect before approval: the network decisions engines recorded lately, replayed
// against the proposed egress policy ("would have allowed 14 requests from 3 environments; newly
// denies none"), so whoever decides sees what the change would have done, not only its text.
import { sql } from "drizzle-orm";
import type { Tx } from "../../db/transaction";
import { allows, type EgressPolicy } from "./egress";

/** The decisions replayed: those of the last this many days. */
export const REPLAY_DAYS = 30;
/** The destinations named in each direction, the most requests first. */
const NAMED = 10;

interface Group {
  host: string;
  port: number;
  allowed: boolean;
  requests: number;
  environments: string[];
}

/** What a direction of change adds up to: requests, the environments they came from, the destinations. */
function summed(groups: readonly Group[]) {
  const environments = new Set(groups.flatMap((group) => group.environments));
  return {
    requests: groups.reduce((sum, group) => sum + group.requests, 0),
    environments: environments.size,
    destinations: [...groups]
      .sort((a, b) => b.requests - a.requests || a.host.localeCompare(b.host) || a.port - b.port)
      .slice(0, NAMED)
      .map((group) => `${group.host}:${group.port}`),
  };
}

/**
 * The decisions of the last REPLAY_DAYS days (by destination, verdict and environment, so the replay
 * reads a row per destination, not per request) against `policy`: what it would newly allow and newly deny.
 */
export async function replayDecisions(tx: Tx, orgId: string, policy: EgressPolicy) {
  const { rows } = await tx.execute<Group>(sql`
    SELECT host, port, allowed, count(*)::int AS requests, array_agg(DISTINCT env_id) FILTER (WHERE env_id IS NOT NULL) AS environments
    FROM network_decisions WHERE org_id = ${orgId} AND occurred_at > now() - make_interval(days => ${REPLAY_DAYS})
    GROUP BY host, port, allowed`);
  const groups = rows.map((row) => ({ ...row, environments: row.environments ?? [] }));
  return {
    days: REPLAY_DAYS,
    requests: groups.reduce((sum, group) => sum + group.requests, 0),
    newlyAllowed: summed(groups.filter((group) => !group.allowed && allows(policy, group.host, group.port))),
    newlyDenied: summed(groups.filter((group) => group.allowed && !allows(policy, group.host, group.port))),
  };
}

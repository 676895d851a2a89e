// Environments, workloads and runs for the engine-work tests, made through the service's own
// functions; time passes by moving a run's or command's timestamps into the past.
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { inTenant } from "../../db/transaction";
import { environmentObject } from "../../worker/object-calls";
import { enqueueCommand, type CommandKind } from "../../worker/commands/enqueue";
import { defineWorkload, requestRun } from "../../worker/workloads/requests";
import { call } from "./http";
import { makeEvent, postEvents } from "./events";
import { appPool } from "./sql";
import { asRole } from "./sql";

export async function seedEnvironment(token: string, envId: string): Promise<void> {
  const response = await postEvents(token, [
    makeEvent({ type: "environment.ready", envId, sequence: 1, payload: { repository: "acme/shop", branch: "main" } }),
  ]);
  if (response.status !== 202) throw new Error(`seeding environment ${envId}: ${response.status}`);
}

export async function seedRun(orgId: string, envId: string, compiled: Record<string, unknown> = { steps: ["load"] }): Promise<string> {
  const pool = appPool();
  try {
    const runId = await inTenant(pool.connect, orgId, async (tx) => {
      const { versionId } = await defineWorkload(tx, orgId, `workload-${crypto.randomUUID().slice(0, 8)}`, compiled);
      return requestRun(tx, orgId, envId, versionId);
    });
    await environmentObject(env, orgId, envId).wake(orgId, envId);
    return runId;
  } finally {
    await pool.end();
  }
}

export async function seedCommand(orgId: string, envId: string, kind: CommandKind, runId?: string): Promise<string> {
  const pool = appPool();
  try {
    return await inTenant(pool.connect, orgId, (tx) => enqueueCommand(tx, orgId, { envId, kind, ...(runId ? { runId } : {}) }));
  } finally {
    await pool.end();
  }
}

export const claim = (token: string, envId: string) => call("/v1/workloads/claim", { method: "POST", token, json: { envId } });

export const beat = (token: string, runId: string, leaseId: string) =>
  call(`/v1/workloads/runs/${runId}/heartbeat`, { method: "POST", token, json: { leaseId } });

export interface Claimed {
  run: {
    id: string;
    envId: string;
    version: { compiled: unknown; number: number };
    lease: { id: string; attempt: number; expiresAt: string };
    deadline: string;
  } | null;
}

/** Moves a run's lease expiry and/or deadline into the past. */
export const elapse = (runId: string, what: { lease?: boolean; deadline?: boolean }) =>
  asRole("superuser", (client) =>
    client.query(
      `UPDATE workload_runs SET
         lease_expires_at = CASE WHEN $2 THEN now() - interval '1 second' ELSE lease_expires_at END,
         deadline_at = CASE WHEN $3 THEN now() - interval '1 second' ELSE deadline_at END
       WHERE id = $1`,
      [runId, what.lease ?? false, what.deadline ?? false],
    ),
  );

export const runRow = (runId: string) =>
  asRole("superuser", async (client) => (await client.query("SELECT * FROM workload_runs WHERE id = $1", [runId])).rows[0]);

/** Fires the environment object's deadline alarm now. */
export const fireAlarm = (orgId: string, envId: string) => runDurableObjectAlarm(environmentObject(env, orgId, envId));

// One object per (organization, envId): the serialization point for that environment. Projection of
// its events and claims of its workload runs run here one at a time, and its alarm abandons runs
// whose deadline passed. PostgreSQL stays the durable record; a Cron sweep is the backstop.
import { DurableObject } from "cloudflare:workers";
import { DatabaseUnreachable, openPool, useBridge, type RequestPool } from "../db/neon";
import { inTenant, type Tx } from "../db/transaction";
import { configFor } from "../worker/config/for-env";
import type { Env } from "../worker/env";
import type { ProjectionEvent } from "../worker/environments/projection";
import { projectOntoEnvironment } from "../worker/environments/store";
import { confirmTeardowns } from "../worker/commands/confirm";
import { abandonOverdueInEnvironment, nextDeadline } from "../worker/workloads/abandon";
import { claimRun, environmentExists, type ClaimedRun } from "../worker/workloads/claim";

interface Identity {
  orgId: string;
  envId: string;
}

export class EnvironmentObject extends DurableObject<Env> {
  // Calls run one after another: one batch's or claim's reads and writes never interleave with
  // another's, even while either waits on the database (input gates do not hold across that I/O).
  private tail: Promise<unknown> = Promise.resolve();

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work, work);
    this.tail = run.catch(() => {});
    return run;
  }

  // One connection kept by the object across its calls (a Durable Object may hold I/O between
  // requests; a Worker's request may not): a claim or a batch's projection does not pay a new
  // connection each time (bench/claim.ts). The driver closes it after 10 s idle and reconnects on
  // the next call; a connection that failed is discarded by the pool, and a call that could not
  // reach the database drops the pool so the next one starts afresh.
  private pool: RequestPool | null = null;

  private connection(): RequestPool {
    if (!this.pool) {
      const { database } = configFor(this.env);
      useBridge(database.wsProxy);
      this.pool = openPool(database.url, 1);
    }
    return this.pool;
  }

  /** Runs `work` for this environment in a tenant transaction, then re-arms the deadline alarm. */
  private async inEnvironment<T>(identity: Identity, work: (tx: Tx) => Promise<T>): Promise<T> {
    await this.ctx.storage.put("identity", identity);
    const pool = this.connection();
    try {
      return await inTenant(pool.connect, identity.orgId, async (tx) => {
        const result = await work(tx);
        const next = await nextDeadline(tx.sql, identity.orgId, identity.envId);
        if (next === null) await this.ctx.storage.deleteAlarm();
        else await this.ctx.storage.setAlarm(Math.max(next, Date.now() + 1000));
        return result;
      });
    } catch (error) {
      if (error instanceof DatabaseUnreachable && this.pool === pool) {
        this.pool = null;
        this.ctx.waitUntil(pool.end());
      }
      throw error;
    }
  }

  /** Applies a batch of this environment's events; returns, by ref, why an event changed nothing. */
  project(orgId: string, envId: string, events: ProjectionEvent[]): Promise<Array<{ ref: number; note: string }>> {
    return this.serially(() =>
      this.inEnvironment({ orgId, envId }, async (tx) => {
        const notes = await projectOntoEnvironment(tx, orgId, envId, events);
        // The engine's own destruction event is what confirms a teardown.
        if (events.some((event) => event.type === "environment.torn_down")) await confirmTeardowns(tx, orgId, envId);
        return [...notes].map(([ref, note]) => ({ ref, note }));
      }),
    );
  }

  /** The oldest waiting (or expired-lease) run for `tokenId`; "no_environment" when the environment is unknown. */
  claim(orgId: string, envId: string, tokenId: string): Promise<ClaimedRun | null | "no_environment"> {
    return this.serially(() =>
      this.inEnvironment({ orgId, envId }, async (tx) =>
        (await environmentExists(tx, orgId, envId)) ? claimRun(tx, orgId, envId, tokenId) : "no_environment",
      ),
    );
  }

  /** Arms the alarm for a run just requested on this environment. */
  wake(orgId: string, envId: string): Promise<void> {
    return this.serially(() => this.inEnvironment({ orgId, envId }, async () => {}));
  }

  /** A deadline passed: abandon what is overdue, then re-arm for the next deadline. */
  override async alarm(): Promise<void> {
    const identity = await this.ctx.storage.get<Identity>("identity");
    if (!identity) return;
    await this.serially(() =>
      this.inEnvironment(identity, (tx) => abandonOverdueInEnvironment(tx.sql, identity.orgId, identity.envId)),
    );
  }
}

export const environmentObjectName = (orgId: string, envId: string) => `${orgId}/${envId}`;

export const environmentObject = (env: Env, orgId: string, envId: string) =>
  env.ENVIRONMENTS.get(env.ENVIRONMENTS.idFromName(environmentObjectName(orgId, envId)));

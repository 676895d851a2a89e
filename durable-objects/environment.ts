// One object per (organization, envId): the serialization point for that environment. Projection
// of its events runs here one batch at a time. PostgreSQL stays the durable record.
import { DurableObject } from "cloudflare:workers";
import { openPool, useBridge } from "../db/neon";
import { inTenant } from "../db/transaction";
import { configFor } from "../worker/config/for-env";
import type { Env } from "../worker/env";
import type { ProjectionEvent } from "../worker/environments/projection";
import { projectOntoEnvironment } from "../worker/environments/store";

export class EnvironmentObject extends DurableObject<Env> {
  // Calls run one after another: a batch's read and write of the row never interleave with another
  // batch's, even while either waits on the database (input gates do not hold across that I/O).
  private tail: Promise<unknown> = Promise.resolve();

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work, work);
    this.tail = run.catch(() => {});
    return run;
  }

  /** Applies a batch of this environment's events; returns, by ref, why an event changed nothing. */
  project(orgId: string, envId: string, events: ProjectionEvent[]): Promise<Array<{ ref: number; note: string }>> {
    return this.serially(async () => {
      const { database } = configFor(this.env);
      useBridge(database.wsProxy);
      const pool = openPool(database.url, 1);
      try {
        const notes = await inTenant(pool.connect, orgId, (tx) => projectOntoEnvironment(tx, orgId, envId, events));
        return [...notes].map(([ref, note]) => ({ ref, note }));
      } finally {
        this.ctx.waitUntil(pool.end());
      }
    });
  }
}

export const environmentObjectName = (orgId: string, envId: string) => `${orgId}/${envId}`;

// One object per (organization, envId): it keeps the database connections its environment's claims and
// heartbeats run on (docs/decisions/0001-database-round-trips.md), and its alarm abandons runs whose
// deadline passed. The leases themselves are compare-and-sets in PostgreSQL, and the environment's
// events are ordered by the database's locks in the transaction that stores them
// (worker/environments/store.ts). PostgreSQL stays the durable record; a Cron sweep is the backstop.
import { DurableObject } from "cloudflare:workers";
import { openPool, useBridge, type RequestPool } from "../db/neon";
import { inOneRoundTrip, inTransaction, type Connection, type OneRoundTrip, type Tx } from "../db/transaction";
import { configFor } from "../worker/config/for-env";
import type { Env } from "../worker/env";
import { diagnose } from "../worker/http/diagnosis";
import { publishChanges } from "../worker/live-channel";
import { log } from "../worker/log";
import type { EnvironmentApi, ObjectAnswer } from "../worker/object-interfaces";
import type { ClaimOutcome, ClaimRequest, HeartbeatOutcome, HeartbeatRequest, ObjectRefusal } from "../worker/workloads/environment-object";
import type { LiveTopic } from "../worker/shared/live";
import { Turns } from "./turns";

const loadWork = () => import("./environment-work");

type Identity = Pick<ClaimRequest, "orgId" | "envId">;

/** Claims of one environment under way at once, each on its own connection; more wait for one. */
const CONNECTIONS = 4;

export class EnvironmentObject extends DurableObject<Env> implements EnvironmentApi {
  // A wake and the alarm run alone: their reads and writes never interleave with another call's, and
  // the alarm they re-arm from the database is the last word. Claims run side by side (SKIP LOCKED
  // gives each a different run; a claim only ever brings the alarm forward).
  #turns = new Turns();

  // Connections kept by the object across its calls (a Durable Object may hold I/O between requests;
  // a Worker's request may not): a claim does not pay a new connection each
  // time (bench/claim.ts). One per claim under way, up to CONNECTIONS. The driver closes one after
  // 10 s idle and reconnects on the next call; a connection that failed is discarded by the pool, and
  // a call that could not reach the database drops the pool so the next one starts afresh.
  #pool: RequestPool | null = null;

  #connection(): RequestPool {
    if (!this.#pool) {
      const { database } = configFor(this.env);
      useBridge(database.wsProxy);
      this.#pool = openPool(database.url, "svc_app", CONNECTIONS);
    }
    return this.#pool;
  }

  // The identity is written once per object: the alarm reads it back after an eviction.
  #identityStored = false;

  /** Runs `work` for this environment in a tenant transaction on the object's connections. */
  #inEnvironment<T>(identity: Identity, work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.#onConnections(identity, (connect) => inTransaction(connect, { orgId: identity.orgId }, work));
  }

  /** Runs `transact` (a transaction acting as the environment's organization) on the object's connections. */
  async #onConnections<T>(identity: Identity, transact: (connect: () => Promise<Connection>) => Promise<T>): Promise<T> {
    if (!this.#identityStored) {
      await this.ctx.storage.put("identity", identity);
      this.#identityStored = true;
    }
    const pool = this.#connection();
    try {
      return await transact(pool.connect);
    } catch (error) {
      // A connection the database ended (a terminated backend, a restart) says so with a SQLSTATE, not as
      // DatabaseUnreachable: either way the pool starts afresh, so no dead connection is handed out again.
      if (diagnose(error).kind === "database_unreachable" && this.#pool === pool) {
        this.#pool = null;
        this.ctx.waitUntil(pool.end());
      }
      throw error;
    }
  }

  /** Re-arms the deadline alarm from the database: the environment's earliest deadline, or none. */
  async #rearm(tx: Tx, identity: Identity): Promise<void> {
    await this.#armAt(await (await loadWork()).nextDeadline(tx, identity.orgId, identity.envId));
  }

  // The alarm as this object last set or read it (undefined until it knows): only this object's code
  // sets it and a firing consumes it, so a call that leaves it as it is writes nothing.
  #alarm: number | null | undefined;

  /** The alarm for the environment's earliest deadline (epoch ms), or none. */
  async #armAt(next: number | null): Promise<void> {
    const at = next === null ? null : Math.max(next, Date.now() + 1000);
    if (at === this.#alarm) return;
    this.#alarm = at;
    if (at === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(at);
  }

  /**
   * The oldest waiting (or expired-lease) run for the caller, whose engine token is checked in the
   * same transaction (revocation and suspension apply at once); a refusal when it may not claim or
   * the environment is unknown.
   */
  claim(request: ClaimRequest): Promise<ObjectAnswer<ClaimOutcome>> {
    return answered(this.#claimed(request));
  }

  async #claimed(request: ClaimRequest): Promise<ClaimOutcome> {
    const { claimTransaction } = await loadWork();
    const outcome = await this.#turns.shared(() => this.#asCaller(request, claimTransaction(configFor(this.env), request)));
    if (outcome.refused) return { run: null, refused: outcome.refused };
    const { run, watched } = outcome.value;
    // A claim only moves the claimed run's deadline: the alarm need fire no later than it. An alarm
    // that fires early finds nothing overdue and re-arms from the database.
    if (run) {
      await this.#armBy(Date.parse(run.deadline));
      if (watched) this.#told("workloads", request);
    }
    return { run, refused: null };
  }

  /**
   * Extends the lease and deadline of a run of the environment for the caller, whose engine token is
   * checked in the same transaction; a refusal when it may not. A heartbeat only moves a deadline later
   * (an alarm that fires early finds nothing overdue), so it waits for no turn.
   */
  heartbeat(request: HeartbeatRequest): Promise<ObjectAnswer<HeartbeatOutcome>> {
    return answered(this.#beat(request));
  }

  async #beat(request: HeartbeatRequest): Promise<HeartbeatOutcome> {
    const { heartbeatTransaction } = await loadWork();
    const outcome = await this.#asCaller(request, heartbeatTransaction(configFor(this.env), request));
    return outcome.refused ? { beat: null, refused: outcome.refused } : { beat: outcome.value, refused: null };
  }

  /** A transaction of one round trip that checks the caller's engine token, on the object's connections; its refusal as data. */
  async #asCaller<T>(identity: Identity, transaction: OneRoundTrip<T>): Promise<{ value: T; refused: null } | { refused: NonNullable<ObjectRefusal> }> {
    const { refusalOf } = await loadWork();
    try {
      return { value: await this.#onConnections(identity, (connect) => inOneRoundTrip(connect, transaction)), refused: null };
    } catch (error) {
      const refused = refusalOf(error);
      if (!refused) throw error;
      return { refused };
    }
  }

  /** Tells the organization's open consoles, after the call's answer: a change they miss is read on the next. */
  #told(topic: LiveTopic, { orgId, envId }: Identity): void {
    this.ctx.waitUntil(publishChanges(this.env, orgId, [{ topic, envId }]));
  }

  async #armBy(at: number): Promise<void> {
    if (this.#alarm === undefined) {
      const stored = await this.ctx.storage.getAlarm();
      if (this.#alarm === undefined) this.#alarm = stored;
    }
    if (this.#alarm !== null && this.#alarm <= at) return;
    this.#alarm = at;
    await this.ctx.storage.setAlarm(at);
  }

  /** Arms the alarm for a run just requested on this environment. */
  wake(orgId: string, envId: string): Promise<ObjectAnswer<null>> {
    return answered(this.#turns.exclusive(() => this.#inEnvironment({ orgId, envId }, (tx) => this.#rearm(tx, { orgId, envId }))).then(() => null));
  }

  /**
   * A deadline passed: abandon what is overdue, then re-arm for the next deadline. When that fails (the
   * database away) the alarm is set again a little later (a thrown alarm would be retried too, but
   * logged as an uncaught error each time); the Cron sweep is the backstop either way.
   */
  override async alarm(): Promise<void> {
    // The alarm that fired is consumed.
    this.#alarm = null;
    const identity = await this.ctx.storage.get<Identity>("identity");
    if (!identity) return;
    const { abandonOverdueInEnvironment } = await loadWork();
    const outcome = await answered(this.#overdue(identity, abandonOverdueInEnvironment));
    if (!("value" in outcome)) {
      this.#alarm = Date.now() + ALARM_RETRY_MS;
      await this.ctx.storage.setAlarm(this.#alarm);
    }
  }

  #overdue(identity: Identity, abandonOverdueInEnvironment: typeof import("./environment-work").abandonOverdueInEnvironment): Promise<void> {
    return this.#turns.exclusive(() =>
      this.#inEnvironment(identity, async (tx) => {
        const abandoned = await abandonOverdueInEnvironment(tx, identity.orgId, identity.envId);
        await this.#rearm(tx, identity);
        return abandoned;
      }).then((abandoned) => {
        if (abandoned > 0) this.#told("workloads", identity);
      }),
    );
  }
}

/** When the alarm's work failed, it tries again this much later. */
const ALARM_RETRY_MS = 30_000;

/**
 * A call's value; `unavailable` when it failed because the database could not be reached; `failed`
 * for any other failure. A failure crosses the RPC boundary as data (worker/object-calls.ts raises it again)
 * and is logged here once, as one line: a call never rejects, so nothing the object was doing when its
 * caller went away (a reset, a deploy, an abandoned request) surfaces as an uncaught exception.
 */
async function answered<T>(work: Promise<T>): Promise<ObjectAnswer<T>> {
  try {
    return { value: await work };
  } catch (error) {
    const { kind, errorClass, sqlState, frames } = diagnose(error);
    if (kind === "database_unreachable") {
      log("warn", "environment_object.database_unavailable", { errorClass, ...(sqlState ? { sqlState } : {}) });
      return { unavailable: true };
    }
    log("error", "environment_object.failed", { errorClass, ...(sqlState ? { sqlState } : {}), frames });
    return { failed: errorClass };
  }
}

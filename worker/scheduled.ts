// Cron Triggers (wrangler.toml [triggers]): the daily partition pass; every five minutes the deadline
// sweep that backs up the environment objects' alarms, and the steps of organization deletions.
// Each run logs its start and its outcome with its duration (cron.started, cron.finished); a job that
// throws logs the diagnosis a failing request logs (cron.failed) and lands in the failure store with
// its job name as the route, then fails the invocation.
import { DEADLINES } from "../db/deadline";
import type { Db } from "../db/transaction";
import { openPool, useBridge, withDb } from "../db/neon";
import type { Config } from "./config/types";
import { analyticsRollupFromWorker } from "./analytics/rollup-job";
import { rollUpActivity } from "./overview/activity";
import { advanceDueDeletions, dueDeletions } from "./deletion/advance";
import { destroyExpiredExports } from "./deletion/work";
import { configFor } from "./config/for-env";
import type { Env } from "./env";
import { partitionPassFromWorker } from "./events/partitions/run";
import { constantTimeEqual } from "./http/constant-time";
import { diagnose, FAILURE_CODE } from "./http/diagnosis";
import { refusalResponse } from "./http/failure";
import { Refusal } from "./http/refusal";
import { log } from "./log";
import { storeFailure } from "./http/failure-store";
import { pruneFailureGroups } from "./operators/failure-groups";
import { abandonOverdueEverywhere } from "./workloads/abandon";
import { pruneExpiredExchangeTokens } from "./tokens/prune";
import { pruneExpiredRefreshTokens } from "./mcp/prune";
import { pruneEndedSessions } from "./sessions/prune";
import { pruneExpiredMagicLinks } from "./magic-links/prune";
import { pruneEndedDeviceSignIns } from "./device/prune";
import { pruneAssistantUsage } from "./assistant/prune";
import { ANALYTICS_CRON, cronNamed, JOB_NAMES, LOCAL_CRON_PATH, PARTITION_CRON, SWEEP_CRON } from "./cron-names";

export { ANALYTICS_CRON, PARTITION_CRON, SWEEP_CRON } from "./cron-names";

type Job = (env: Env, config: Config, at: Date) => Promise<unknown>;

/** The job of each Cron Trigger; wrangler.toml's `crons` are exactly these (test/scheduled checks it). */
export const CRON_JOBS: Readonly<Record<string, Job>> = {
  [PARTITION_CRON]: partitionPassFromWorker,
  [SWEEP_CRON]: maintenancePass,
  [ANALYTICS_CRON]: analyticsRollupFromWorker,
};

export async function scheduled(controller: ScheduledController, env: Env): Promise<void> {
  const job = CRON_JOBS[controller.cron];
  if (!job) {
    // A cron added to wrangler.toml without a job here: say so rather than run some other job.
    const known = Object.keys(CRON_JOBS).join('", "');
    log("error", "cron.unknown", { cron: controller.cron, known: Object.keys(CRON_JOBS) });
    throw new Error(`No job is defined for the Cron Trigger "${controller.cron}"; this Worker runs "${known}".`);
  }
  await runJob(controller.cron, env, new Date(controller.scheduledTime));
}

export interface JobFailed {
  runId: string;
  code: string;
}

/** One run of a cron's job, logged and, when it throws, diagnosed and stored; resolves to the job's report. */
export async function runJob(cron: string, env: Env, at: Date): Promise<{ runId: string; durationMs: number; report: unknown }> {
  const job = CRON_JOBS[cron]!;
  const name = JOB_NAMES[cron] ?? cron;
  const config = configFor(env);
  const runId = crypto.randomUUID();
  const started = Date.now();
  log("info", "cron.started", { runId, job: name, cron });
  try {
    const report = await job(env, config, at);
    const durationMs = Date.now() - started;
    log("info", "cron.finished", { runId, job: name, cron, outcome: "ok", durationMs });
    return { runId, durationMs, report };
  } catch (error) {
    const durationMs = Date.now() - started;
    const diagnosis = diagnose(error);
    const code = FAILURE_CODE[diagnosis.kind];
    log("error", "cron.failed", { requestId: runId, code, method: "CRON", route: name, cron, outcome: "failed", durationMs, ...diagnosis });
    // Awaited, not left to waitUntil: the invocation ends with the job. Its own failure never hides the job's.
    await storeFailure(config, { requestId: runId, code, method: "CRON", route: name, diagnosis }).catch(() =>
      log("warn", "failure.store_failed", { requestId: runId }),
    );
    throw Object.assign(new CronJobFailed(name, code, runId), { cause: error });
  }
}

/** What a failed job throws: its name, the catalog code and the run id its log line and failure-store entry carry. */
export class CronJobFailed extends Error {
  override readonly name = "CronJobFailed";
  constructor(
    readonly job: string,
    readonly code: string,
    readonly runId: string,
  ) {
    super(`The ${job} job failed (${code}); its diagnosis is logged and stored under run ${runId}.`);
  }
}

/**
 * `POST /local/cron?job=<cron or job name>` with `authorization: Bearer <SVC_LOCAL_CRON_SECRET>`: runs
 * the job now and answers its report (`svc cron run`, local/crons.ts); refusals are the catalog's, in
 * the spec's Refusal shape. Null (the app answers, 404) for any other address or method (as a wrong
 * method anywhere in the app), without the variable, or off a loopback host: a deployed Worker has none of it.
 */
export async function localCron(request: Request, env: Env): Promise<Response | null> {
  const secret = env.SVC_LOCAL_CRON_SECRET;
  const url = new URL(request.url);
  if (!secret || url.pathname !== LOCAL_CRON_PATH || request.method !== "POST" || !LOOPBACK.has(url.hostname)) return null;
  const given = /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
  if (!constantTimeEqual(given, secret)) return refusalResponse(new Refusal("unauthenticated", "The local cron secret is missing or wrong."), undefined);
  const cron = cronNamed(url.searchParams.get("job") ?? "");
  if (!cron || !CRON_JOBS[cron]) {
    const jobs = Object.entries(JOB_NAMES).map(([cron, job]) => `${job} (${cron})`);
    return refusalResponse(new Refusal("not_found", `No job or Cron Trigger is named so; the jobs are ${jobs.join(", ")}.`), undefined);
  }
  const job = JOB_NAMES[cron];
  try {
    const { runId, durationMs, report } = await runJob(cron, env, new Date());
    return Response.json({ job, cron, runId, outcome: "ok", durationMs, report: report ?? null });
  } catch (error) {
    if (!(error instanceof CronJobFailed)) throw error;
    const { runId, code } = error;
    return Response.json({ job, cron, runId, outcome: "failed", code }, { status: 500 });
  }
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * What the sweep deletes past its keeping, in this order, each as the maintenance role (whose policies
 * show it only those rows): logged as its event, counted in the report under its name.
 */
const PRUNES = {
  /** Identity-exchange engine tokens past their 15 minutes. */
  exchangeTokensDeleted: { event: "sweep.exchange_tokens", prune: pruneExpiredExchangeTokens },
  /** Model clients' refresh tokens the previous release issued, past their expiry (worker/mcp/prune.ts). */
  refreshTokensDeleted: { event: "sweep.refresh_tokens", prune: pruneExpiredRefreshTokens },
  /** Sessions a day past their 30 days (no browser can present one). */
  sessionsDeleted: { event: "sweep.sessions", prune: pruneEndedSessions },
  /** Sign-in links past their 15 minutes, with the address each named. */
  magicLinksDeleted: { event: "sweep.magic_links", prune: pruneExpiredMagicLinks },
  /** Device sign-ins a day past their 15 minutes. */
  deviceSignInsDeleted: { event: "sweep.device_sign_ins", prune: pruneEndedDeviceSignIns },
  /** The website assistant's usage days past USAGE_KEPT_DAYS. */
  assistantUsageDeleted: { event: "sweep.assistant_usage", prune: pruneAssistantUsage },
} satisfies Record<string, { event: string; prune: (db: Db) => Promise<number> }>;
type Pruned = Record<keyof typeof PRUNES, number>;

/** What one maintenance pass did. */
export interface SweepReport extends Pruned {
  abandonedRuns: number;
  failureGroupsDeleted: number;
  heldExportsDestroyed: number;
  /** The console's 30-day charts: rows rolled up, and days past their keeping removed. */
  activity?: Awaited<ReturnType<typeof rollUpActivity>>;
  /** Each due deletion's organization and what advancing it did. */
  deletions: Record<string, unknown>;
  skipped?: string;
}

/**
 * As the maintenance role, whose policies show it only overdue runs, due deletions, expired held
 * exports, and what PRUNES deletes: abandons every overdue run of every organization, deletes failure
 * groups past SVC_FAILURE_RETENTION_DAYS and what PRUNES names, removes held deletion exports whose link
 * expired, rolls up the charts' activity, then advances each due deletion as the application role
 * acting as its organization.
 */
async function maintenancePass(env: Env, config: Config): Promise<SweepReport> {
  const url = config.database.maintenanceUrl;
  if (!url) {
    const reason = "No maintenance or migration role is configured; deadlines rely on the environment alarms alone, and deletions wait.";
    log("warn", "sweep.skipped", { reason });
    return {
      abandonedRuns: 0,
      failureGroupsDeleted: 0,
      ...(Object.fromEntries(Object.keys(PRUNES).map((name) => [name, 0])) as Pruned),
      heldExportsDestroyed: 0,
      deletions: {},
      skipped: reason,
    };
  }
  useBridge(config.database.wsProxy);
  const { due, ...counts } = await withDb(url, "svc_maintenance", async (client) => {
    const abandonedRuns = await abandonOverdueEverywhere(client);
    log("info", "sweep.deadlines", { abandoned: abandonedRuns });
    const failureGroupsDeleted = await pruneFailureGroups(client, config.failures.retentionDays);
    log("info", "sweep.failure_groups", { deleted: failureGroupsDeleted });
    const pruned = {} as Pruned;
    for (const [name, { event, prune }] of Object.entries(PRUNES) as Array<[keyof Pruned, (typeof PRUNES)[keyof Pruned]]>) {
      pruned[name] = await prune(client);
      log("info", event, { deleted: pruned[name] });
    }
    const heldExportsDestroyed = await destroyExpiredExports(client, env.EXPORTS);
    log("info", "sweep.held_exports", { destroyed: heldExportsDestroyed });
    const activity = await rollUpActivity(client);
    log("info", "sweep.activity", activity);
    return {
      abandonedRuns,
      failureGroupsDeleted,
      ...pruned,
      heldExportsDestroyed,
      activity,
      due: await dueDeletions(client),
    };
  });
  if (due.length === 0) return { ...counts, deletions: {} };
  // The deletion's steps run longer transactions than a request's (the Revoke step's took 3.1 s at a year's scale).
  const pool = openPool(config.database.url, "svc_app", config.database.poolMax, DEADLINES.scheduledStatementMs);
  try {
    const outcomes = await advanceDueDeletions({ connect: pool.connect, config, env }, due);
    log("info", "deletions.advanced", { outcomes: Object.values(outcomes) });
    return { ...counts, deletions: outcomes };
  } finally {
    await pool.end();
  }
}

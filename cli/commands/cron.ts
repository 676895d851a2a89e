// `svc cron list` and `svc cron run <cron or job name>`: the Cron Triggers of wrangler.toml (the one
// list of them) with their jobs and next runs, and one job run now by the running local Worker, through
// its local-only cron route (worker/scheduled.ts localCron, there while `npm start` sets
// SVC_LOCAL_CRON_SECRET). The local stack's scheduler (local/crons.ts) fires them the same way.
import { readFileSync } from "node:fs";
import { Cron } from "croner";
import { cronNamed, JOB_NAMES, LOCAL_CRON_PATH } from "../../worker/cron-names";
import { UNREACHABLE_EXIT, UsageError, type Command, type CommandEnv } from "../command";

const WRANGLER_TOML = new URL("../../wrangler.toml", import.meta.url);

/** wrangler.toml's Cron Triggers: its one `crons = [...]` line. */
export function wranglerCrons(toml: string = readFileSync(WRANGLER_TOML, "utf8")): string[] {
  const line = /^crons\s*=\s*(\[.*\])\s*$/m.exec(toml);
  if (!line) throw new Error("wrangler.toml has no `crons = [...]` line");
  return JSON.parse(line[1]!) as string[];
}

/** Each cron with its job's name and its next run after `now`, in UTC as Cloudflare runs them. */
export function schedule(crons: readonly string[], now: Date): Array<{ job: string; cron: string; next: Date | null }> {
  return crons.map((cron) => ({ job: JOB_NAMES[cron] ?? "(no job)", cron, next: new Cron(cron, { timezone: "Etc/UTC", paused: true }).nextRun(now) }));
}

export interface CronRun {
  job: string;
  cron: string;
  runId: string;
  outcome: "ok" | "failed";
  durationMs?: number;
  code?: string;
  report?: unknown;
}

/**
 * How long a job may take before the caller stops waiting: a Cron Trigger's invocation runs 15 minutes
 * at most, so a run still unanswered then is a Worker in trouble, and the local scheduler, which never
 * starts a cron again while its last run goes on, would otherwise wait on it for good.
 */
const CRON_ANSWER_DEADLINE_MS = 15 * 60_000;

/** Runs one job now through the local Worker's cron route; throws a sentence when it cannot. */
export async function runLocalCron(base: string, secret: string, job: string, deadlineMs = CRON_ANSWER_DEADLINE_MS): Promise<CronRun> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(`${base}${LOCAL_CRON_PATH}?job=${encodeURIComponent(job)}`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}` },
      signal: AbortSignal.timeout(deadlineMs),
    });
    text = await response.text();
  } catch (error) {
    const sentence =
      (error as Error).name === "TimeoutError"
        ? `The local Worker at ${base} did not finish the job within ${deadlineMs / 1000} s; its cron.started and cron.finished lines say how far it got.`
        : `The local Worker at ${base} does not answer; start it with \`npm start\`.`;
    throw Object.assign(new Error(sentence), { exitStatus: UNREACHABLE_EXIT });
  }
  const body = parsed(text);
  if (response.status === 200 || (response.status === 500 && body?.outcome === "failed")) return body!;
  if (response.status === 401) throw new Error(`The Worker at ${base} refused the cron secret: SVC_LOCAL_CRON_SECRET is not the one \`npm start\` gave it.`);
  throw new Error(
    `The Worker at ${base} runs no local crons (${response.status}): \`npm start\` turns them on; a deployed Worker runs its Cron Triggers on its own.`,
  );
}

/** The cron route's JSON answer, or null when it is not JSON. */
function parsed(text: string): (CronRun & { error?: string }) | null {
  try {
    return JSON.parse(text) as CronRun & { error?: string };
  } catch {
    return null;
  }
}

/** The running local Worker: --url, else SVC_CONTROL_PLANE, else SVC_PORT's (as `npm start` writes it). */
const baseOf = (env: CommandEnv, url: string | undefined) => (url ?? env.SVC_CONTROL_PLANE ?? `http://127.0.0.1:${env.SVC_PORT ?? "8080"}`).replace(/\/+$/, "");

export const cron: Command = async (args, env) => {
  const [verb, ...rest] = args;
  const urlAt = rest.indexOf("--url");
  const url = urlAt >= 0 ? rest[urlAt + 1] : undefined;
  const positionals = urlAt >= 0 ? rest.filter((_, index) => index !== urlAt && index !== urlAt + 1) : rest;
  if (verb === "list" && positionals.length === 0) {
    for (const { job, cron, next } of schedule(wranglerCrons(), new Date()))
      console.log(`${job.padEnd(18)} ${cron.padEnd(14)} next ${next?.toISOString() ?? "never"}`);
    return 0;
  }
  if (verb !== "run" || positionals.length !== 1) throw new UsageError("usage: svc cron list | svc cron run <cron or job name> [--url URL]");
  const wanted = positionals[0]!;
  if (!cronNamed(wanted) || !wranglerCrons().includes(cronNamed(wanted)!)) {
    console.error(`No Cron Trigger or job is named "${wanted}"; \`svc cron list\` shows them.`);
    return 64;
  }
  const secret = env.SVC_LOCAL_CRON_SECRET;
  if (!secret) {
    console.error("SVC_LOCAL_CRON_SECRET is not set: `svc cron run` runs a job in the local Worker that `npm start` runs (it writes .data/local.env).");
    return 1;
  }
  try {
    const run = await runLocalCron(baseOf(env, url), secret, wanted);
    console.log(JSON.stringify(run, null, 2));
    if (run.outcome === "ok") return 0;
    console.error(
      `The ${run.job} job failed (${run.code}): the Worker logged its diagnosis (cron.failed, run ${run.runId}) and stored it in the failure store.`,
    );
    return 1;
  } catch (error) {
    console.error((error as Error).message);
    return (error as { exitStatus?: number }).exitStatus ?? 1;
  }
};

// The Cron Triggers of wrangler.toml and their jobs' names, with nothing to load: the scheduled handler
// (worker/scheduled.ts), `svc cron` and the local stack's scheduler (local/crons.ts) share them.
export const PARTITION_CRON = "17 3 * * *";
export const SWEEP_CRON = "*/5 * * * *";
/** Installation analytics: the daily rollup of beacon events and own usage, and raw-event retention. */
export const ANALYTICS_CRON = "41 2 * * *";

/** Each cron's job, by the name logs, the failure store and `svc cron run` give it. */
export const JOB_NAMES: Readonly<Record<string, string>> = {
  [PARTITION_CRON]: "partitions",
  [SWEEP_CRON]: "sweep",
  [ANALYTICS_CRON]: "analytics-rollup",
};

/**
 * The local stack's way to run a job now (wrangler dev fires no Cron Trigger, and its
 * /cdn-cgi/handler/scheduled cannot reach a Worker behind Workers Assets). The Worker answers it only
 * while SVC_LOCAL_CRON_SECRET is set, which `npm start` alone does, and only on a loopback address.
 */
export const LOCAL_CRON_PATH = "/local/cron";

/** The cron a cron expression or job name designates, if any. */
export function cronNamed(cronOrName: string): string | undefined {
  if (Object.hasOwn(JOB_NAMES, cronOrName)) return cronOrName;
  return Object.keys(JOB_NAMES).find((cron) => JOB_NAMES[cron] === cronOrName);
}

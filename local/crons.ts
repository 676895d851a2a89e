// The Cron Triggers under `npm start`. wrangler dev fires none (and its /cdn-cgi/handler/scheduled
// cannot reach a Worker behind Workers Assets: miniflare's asset proxy in front forwards fetch only),
// so this fires each cron of wrangler.toml when it is due, in UTC as Cloudflare does, through the
// Worker's local-only cron route (`svc cron run` uses the same). A run that is still going when its
// cron comes round again is not started twice. The Worker logs each run (cron.started, cron.finished,
// cron.failed); this prints only what went wrong.
import { Cron } from "croner";
import { runLocalCron, wranglerCrons } from "../cli/commands/cron";
import { JOB_NAMES } from "../worker/cron-names";

export function startLocalCrons(options: { base: string; secret: string }): { stop: () => void } {
  const jobs = wranglerCrons().map(
    (cron) =>
      new Cron(cron, { timezone: "Etc/UTC", protect: true, name: JOB_NAMES[cron] ?? cron }, async () => {
        const name = JOB_NAMES[cron] ?? cron;
        try {
          const run = await runLocalCron(options.base, options.secret, cron);
          if (run.outcome !== "ok")
            console.error(`cron ${name} (${cron}) failed (${run.code}); the Worker's cron.failed line above has its diagnosis (run ${run.runId})`);
        } catch (error) {
          console.error(`cron ${name} (${cron}) did not run: ${(error as Error).message}`);
        }
      }),
  );
  return { stop: () => jobs.forEach((job) => job.stop()) };
}

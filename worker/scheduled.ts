// Cron Triggers (wrangler.toml [triggers]): the daily partition pass.
import { configFor } from "./config/for-env";
import type { Env } from "./env";
import { partitionPassFromWorker } from "./events/partitions/run";

export async function scheduled(controller: ScheduledController, env: Env): Promise<void> {
  await partitionPassFromWorker(env, configFor(env), new Date(controller.scheduledTime));
}

// `svc analytics rollup`: the daily analytics rollup the Cron Trigger runs, from Node (a backfill, or
// a deployment without Cron Triggers), as the maintenance role.
import { rollUpAnalytics, type RollupReport } from "../../worker/analytics/rollup";
import { formatConfigErrors, parseConfig } from "../../worker/config/parse";
import type { Config } from "../../worker/config/types";
import { UsageError, type Command } from "../command";
import { withNodeDb } from "../../db/node-pool";

export async function analyticsRollupFromNode(config: Config, at: Date = new Date()): Promise<RollupReport | null> {
  const { surrogateSecret, retentionDays } = config.analytics;
  if (!surrogateSecret) {
    console.error("SVC_ANALYTICS_SURROGATE_SECRET is unset: no analytics are recorded or rolled up.");
    return null;
  }
  if (!config.database.maintenanceUrl)
    throw new Error("Neither SVC_MAINTENANCE_DATABASE_URL nor SVC_MIGRATION_DATABASE_URL is set; the rollup needs the maintenance role.");
  return withNodeDb(config.database.maintenanceUrl, "svc_maintenance", (client) => rollUpAnalytics(client, { at, surrogateSecret, retentionDays }));
}

export const analytics: Command = async (args, env) => {
  if (args[0] !== "rollup" || args.length > 1) throw new UsageError("usage: svc analytics rollup");
  const parsed = parseConfig(env);
  if (!parsed.ok) {
    console.error(formatConfigErrors(parsed.errors));
    return 1;
  }
  const report = await analyticsRollupFromNode(parsed.config);
  if (report) console.log(JSON.stringify(report));
  return 0;
};

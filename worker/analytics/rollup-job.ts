// The daily analytics rollup from the Worker's Cron Trigger, as the maintenance role.
import { useBridge, withDb } from "../../db/neon";
import type { Config } from "../config/types";
import type { Env } from "../env";
import { log } from "../log";
import { rollUpAnalytics, type RollupReport } from "./rollup";

export async function analyticsRollupFromWorker(_env: Env, config: Config, at: Date): Promise<RollupReport | null> {
  const { surrogateSecret, retentionDays } = config.analytics;
  if (!surrogateSecret) {
    log("info", "analytics.rollup_skipped", { reason: "SVC_ANALYTICS_SURROGATE_SECRET is unset: no analytics are recorded or rolled up." });
    return null;
  }
  const url = config.database.maintenanceUrl;
  if (!url) {
    log("warn", "analytics.rollup_skipped", {
      reason: "Neither SVC_MAINTENANCE_DATABASE_URL nor SVC_MIGRATION_DATABASE_URL is set; analytics are not rolled up.",
    });
    return null;
  }
  useBridge(config.database.wsProxy);
  const report = await withDb(url, "svc_maintenance", (db) => rollUpAnalytics(db, { at, surrogateSecret, retentionDays }));
  log("info", "analytics.rollup", { ...report });
  return report;
}

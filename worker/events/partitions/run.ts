// Running the partition pass from the Worker (daily Cron Trigger) with the maintenance role.
import { useBridge, withDb } from "../../../db/neon";
import type { Config } from "../../config/types";
import type { Env } from "../../env";
import { log } from "../../log";
import { r2Sink } from "../../storage/r2-sink";
import { runPartitionPass, type PartitionReport } from "./pass";

export async function partitionPassFromWorker(env: Env, config: Config, now: Date): Promise<PartitionReport | null> {
  const url = config.database.maintenanceUrl;
  if (!url) {
    log("warn", "partitions.skipped", { reason: "Neither SVC_MAINTENANCE_DATABASE_URL nor SVC_MIGRATION_DATABASE_URL is set; no partitions are kept ahead." });
    return null;
  }
  const { retentionMonths, archiveDir } = config.events;
  if (archiveDir !== null && retentionMonths !== null && !env.EVENT_ARCHIVE) {
    // Dropping without the archive the operator asked for would lose data: keep everything.
    log("error", "partitions.archive_unavailable", { reason: "SVC_EVENT_ARCHIVE_DIR is set but the EVENT_ARCHIVE bucket is not bound; nothing is dropped." });
  }
  const archive = archiveDir !== null && env.EVENT_ARCHIVE ? { sink: r2Sink(env.EVENT_ARCHIVE), prefix: archiveDir } : null;
  const retention = archiveDir !== null && !archive ? null : retentionMonths;
  useBridge(config.database.wsProxy);
  return withDb(url, "svc_maintenance", async (db) => {
    const report = await runPartitionPass(db, { now, retentionMonths: retention, archive });
    log("info", "partitions.pass", { ...report });
    return report;
  });
}

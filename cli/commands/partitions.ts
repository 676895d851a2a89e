import type { Config } from "../../worker/config/types";
import { formatConfigErrors, parseConfig } from "../../worker/config/parse";
import { runPartitionPass, type PartitionReport } from "../../worker/events/partitions/pass";
import { directorySink } from "../archive-dir";
import { withNodeDb } from "../../db/node-pool";
import type { Command } from "../command";

/** The pass the daily cron runs, from Node: archives go to the SVC_EVENT_ARCHIVE_DIR directory. */
export async function partitionPassFromNode(config: Config): Promise<PartitionReport | null> {
  const { database, events } = config;
  if (!database.maintenanceUrl) {
    console.error("warning: neither SVC_MAINTENANCE_DATABASE_URL nor SVC_MIGRATION_DATABASE_URL is set; no partitions are kept ahead.");
    return null;
  }
  const archive = events.archiveDir === null ? null : { sink: directorySink, prefix: events.archiveDir };
  return withNodeDb(database.maintenanceUrl, "svc_maintenance", (db) =>
    runPartitionPass(db, { now: new Date(), retentionMonths: events.retentionMonths, archive }),
  );
}

export const partitions: Command = async (_args, env) => {
  const parsed = parseConfig(env);
  if (!parsed.ok) {
    console.error(formatConfigErrors(parsed.errors));
    return 1;
  }
  const report = await partitionPassFromNode(parsed.config);
  if (report) console.log(JSON.stringify(report));
  return 0;
};

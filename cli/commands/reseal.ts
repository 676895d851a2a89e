import { parseArgs } from "node:util";
import { formatConfigErrors } from "../../worker/config/parse";
import { EnvReader } from "../../worker/config/readers";
import { readSealingKeys } from "../../worker/config/sealing-keys";
import { resealAll } from "../../worker/providers/reseal";
import { nodePool } from "../../db/node-pool";
import { UsageError, type Command } from "../command";

/**
 * `reseal [--database-url URL] [--batch N]`: every stored provider key sealed again under
 * SVC_PROVIDER_KEY_VERSION, batch by batch (safe to stop and run again), as the re-seal role
 * (SVC_RESEAL_DATABASE_URL unless the URL is given). Exit 1 when a key would not open.
 */
export const reseal: Command = async (args, env) => {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { "database-url": { type: "string" }, batch: { type: "string" } } });
  if (positionals.length > 0) throw new UsageError("reseal: expected `reseal [--database-url URL] [--batch N]`.");
  const batchSize = Number(values.batch ?? 100);
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new UsageError("reseal: --batch must be a whole number of at least 1.");
  const url = values["database-url"] ?? env.SVC_RESEAL_DATABASE_URL;
  if (!url) throw new Error("reseal needs the re-seal role's connection string: set SVC_RESEAL_DATABASE_URL or pass --database-url.");
  // The same reader the Worker uses, so the command seals exactly as the deployed service would.
  const reader = new EnvReader(env);
  const keys = readSealingKeys(reader);
  if (reader.errors.length > 0) {
    console.error(formatConfigErrors(reader.errors));
    return 1;
  }
  if (!keys) throw new Error("No sealing key is configured: set SVC_PROVIDER_KEY_SECRET or SVC_PROVIDER_KEY_SECRETS (with SVC_PROVIDER_KEY_VERSION).");
  const pool = nodePool(url, "svc_reseal");
  try {
    const report = await resealAll(pool.connect, keys, {
      batchSize,
      onBatch: (batch) => console.error(`batch: ${batch.resealed} re-sealed, ${batch.unreadable} unreadable`),
    });
    console.log(`re-sealed ${report.resealed} provider key(s) under version "${keys.sealingVersion}"; ${report.unreadable} would not open`);
    return report.unreadable > 0 ? 1 : 0;
  } finally {
    await pool.end();
  }
};

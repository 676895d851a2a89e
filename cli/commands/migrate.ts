import { applyMigrations, isPooledEndpoint, POOLED_MIGRATION_URL } from "../../db/migrate";
import { migrationsOnDisk } from "../../db/migrations-on-disk";
import { withNodeClient } from "../../db/node-pool";
import { requireVariable, type Command } from "../command";

export const migrate: Command = async (_args, env) => {
  const url = requireVariable(env, "SVC_MIGRATION_DATABASE_URL");
  if (isPooledEndpoint(url)) throw new Error(POOLED_MIGRATION_URL);
  const applied = await withNodeClient(url, (client) => applyMigrations(client, migrationsOnDisk()));
  console.error(applied.length ? `applied: ${applied.join(", ")}` : "no pending migrations");
  return 0;
};

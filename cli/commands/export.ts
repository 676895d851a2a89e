import { join } from "node:path";
import { parseArgs } from "node:util";
import { inTransaction } from "../../db/transaction";
import { writeDataExport } from "../../worker/exports/document";
import { findOrganizationId } from "../../worker/organizations/store";
import { directorySink } from "../archive-dir";
import { nodePool } from "../../db/node-pool";
import { requireVariable, UsageError, type Command } from "../command";

/** `export <slug> [--out DIR]`: the data export document of an organization, written to a file; prints its path. */
export const dataExport: Command = async (args, env) => {
  const { positionals, values } = parseArgs({ args, allowPositionals: true, options: { out: { type: "string" } } });
  const [slug] = positionals;
  if (!slug) throw new UsageError("export: expected `export <slug> [--out DIR]`.");
  const pool = nodePool(requireVariable(env, "SVC_DATABASE_URL"), "svc_app");
  try {
    const orgId = await inTransaction(pool.connect, { lookups: { org_slug: slug } }, (tx) => findOrganizationId(tx, slug));
    if (!orgId) {
      console.error(`No organization has the slug "${slug}".`);
      return 1;
    }
    const path = join(values.out ?? ".", `data-export-${slug}-${new Date().toISOString().slice(0, 10)}.json`);
    const writer = await directorySink.open(path);
    try {
      await writeDataExport(pool.connect, orgId, writer);
      await writer.finish();
    } catch (error) {
      await writer.abort();
      throw error;
    }
    console.log(path);
    return 0;
  } finally {
    await pool.end();
  }
};

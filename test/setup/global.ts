// Runs in Node before the suite: a fresh PostgreSQL with every migration and role, the bridge, and
// the Worker's bindings handed to the pool through `provide`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { TestProject } from "vitest/node";
import { startLocalStack } from "../../local/stack";
import { migrationsOnDisk } from "../../db/cli/migrations-on-disk";
import { withNodeClient } from "../../db/cli/node-pool";
import type { LocalStack } from "../../local/stack";
import { startFakeCodehost } from "../fakes/codehost/server";
import { startFakeMail } from "../fakes/mail";
import { startFakeBilling } from "../fakes/billing/server";
import { freePort } from "./free-port";
import { APP_BASE_URL, testBindings, type TestDatabase } from "./bindings";

export default async function setup(project: TestProject) {
  // Under /tmp (world-traversable): as root the server runs as a `postgres` user.
  const dataDir = join(mkdtempSync(join(tmpdir(), "svc-test-pg-")), "data");
  const stack = await startLocalStack({ dataDir, postgresPort: await freePort(), bridgePort: 0, persistent: false });
  const database: TestDatabase = {
    ...stack.urls,
    superuser: stack.superuserUrl,
    bridge: stack.bridge,
    emptyMigration: await emptyDatabase(stack, "svc_empty"),
  };
  project.provide("migrationNames", migrationsOnDisk().map((migration) => migration.name));
  project.provide("database", database);
  const codehost = await startFakeCodehost({ audience: APP_BASE_URL });
  project.provide("codehostBase", codehost.url);
  project.provide("workerBindings", testBindings(database, codehost));
  const mail = await startFakeMail();
  project.provide("mailBase", mail.url);
  // Tests deliver its events themselves (the Worker under test listens on no port).
  const billing = await startFakeBilling();
  project.provide("billingBase", billing.url);
  return async () => {
    await codehost.close();
    await mail.close();
    await billing.close();
    await stack.stop();
    rmSync(dirname(dataDir), { recursive: true, force: true });
  };
}

/** A database with no schema yet, owned by the migration role: for testing SVC_MIGRATE=1. */
async function emptyDatabase(stack: LocalStack, name: string): Promise<string> {
  await withNodeClient(stack.superuserUrl, (client) => client.query(`CREATE DATABASE ${name} OWNER svc_migrator`));
  return stack.urls.migration.replace(/\/svc$/, `/${name}`);
}

// Runs in Node before the suite: a fresh PostgreSQL with every migration and role, the bridge, and
// the Worker's bindings handed to the pool through `provide`.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { TestProject } from "vitest/node";
import { startLocalStack } from "../../local/stack";
import { migrationsOnDisk } from "../../db/migrations-on-disk";
import { withNodeClient } from "../../db/node-pool";
import type { LocalStack } from "../../local/stack";
import { startFakeCodehost } from "../../fakes/codehost/server";
import { startFakeMail } from "../../fakes/mail";
import { startFakeBilling } from "../../fakes/billing/server";
import { startFakeModelProvider } from "../../fakes/model-providers/server";
import { startFakeAnalytics } from "../../fakes/analytics";
import { freePort } from "../../local/free-port";
import { generatedFiles } from "../../scripts/generate";
import { APP_BASE_URL, testBindings, type TestDatabase } from "./bindings";

export default async function setup(project: TestProject) {
  // Under /tmp (world-traversable): as root the server runs as a `postgres` user.
  const dataDir = join(mkdtempSync(join(tmpdir(), "svc-test-pg-")), "data");
  const stack = await startLocalStack({ dataDir, postgresPort: await freePort(), bridgePort: 0, persistent: false });
  const { inheriting, migration, ...logins } = stack.urls;
  const database: TestDatabase = {
    ...inheriting,
    migration,
    logins,
    superuser: stack.superuserUrl,
    bridge: stack.bridge,
    emptyMigration: await emptyDatabase(stack, "svc_empty"),
  };
  project.provide(
    "migrationNames",
    migrationsOnDisk().map((migration) => migration.name),
  );
  project.provide("cronTriggers", cronTriggers());
  project.provide("generatedFiles", generatedFiles());
  project.provide("database", database);
  const codehost = await startFakeCodehost({ audience: APP_BASE_URL });
  project.provide("codehostBase", codehost.url);
  project.provide("workerBindings", testBindings(database, codehost));
  const mail = await startFakeMail();
  project.provide("mailBase", mail.url);
  // Tests deliver its events themselves (the Worker under test listens on no port).
  const billing = await startFakeBilling();
  project.provide("billingBase", billing.url);
  // The model proxy's upstreams and the analytics vendor; tests name them per call (test/support/providers.ts).
  const messagesProvider = await startFakeModelProvider("messages");
  const chatProvider = await startFakeModelProvider("chat");
  const analytics = await startFakeAnalytics();
  project.provide("modelProviders", { messages: messagesProvider.url, chat: chatProvider.url, analytics: analytics.url });
  return async () => {
    await messagesProvider.close();
    await chatProvider.close();
    await analytics.close();
    await codehost.close();
    await mail.close();
    await billing.close();
    await stack.stop();
    rmSync(dirname(dataDir), { recursive: true, force: true });
  };
}

/** wrangler.toml's Cron Triggers: its one `crons = [...]` line. */
function cronTriggers(): string[] {
  const line = /^crons\s*=\s*(\[.*\])\s*$/m.exec(readFileSync(new URL("../../wrangler.toml", import.meta.url), "utf8"));
  if (!line) throw new Error("wrangler.toml has no `crons = [...]` line");
  return JSON.parse(line[1]!) as string[];
}

/** A database with no schema yet, owned by the migration role: for testing SVC_MIGRATE=1. */
async function emptyDatabase(stack: LocalStack, name: string): Promise<string> {
  await withNodeClient(stack.superuserUrl, (client) => client.query(`CREATE DATABASE ${name} OWNER svc_migrator`));
  return stack.urls.migration.replace(/\/svc$/, `/${name}`);
}

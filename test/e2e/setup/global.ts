// Before the end-to-end tests: the console built, Chromium found (or installed), and the local stack
// as `npm start` runs it (PostgreSQL and the bridge in a temporary folder, the fake code host with its
// App, the Worker under `wrangler dev` on a free port), all stopped afterwards.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { partitionPassFromNode } from "../../../cli/commands/partitions";
import { buildConsole } from "../../../local/console-build";
import { writeEnvFile } from "../../../cli/env-file";
import { localWorkerDefaults, startLocalStack } from "../../../local/stack";
import { startWrangler, workerAnswers } from "../../../local/wrangler";
import { buildSite, siteAnswers, startSite } from "../../../local/site";
import { parseConfig } from "../../../worker/config/parse";
import { startFakeCodehost } from "../../../fakes/codehost/server";
import { startFakeModelProvider } from "../../../fakes/model-providers/server";
import { localWorkflows } from "../../../local/fake-codehost";
import { freePort } from "../../../local/free-port";
import { startBeaconPage } from "./beacon-page";
import { findChromium } from "./chromium";

declare module "vitest" {
  export interface ProvidedContext {
    /** The local stack's database logins, for the operator command line (`svc admin`, `svc orgs`). */
    e2eDatabase: { app: string; operator: string };
    /** `beaconPage`: a second allowed origin, serving the beacon's test page (./beacon-page.ts) to test/e2e/beacon.e2e.ts. */
    e2e: { base: string; codehost: string; chromium: string; site: string; beaconPage: string; analyticsOperator: string; workerEnv: Record<string, string> };
  }
}

export default async function setup(project: TestProject) {
  const chromium = findChromium();
  await buildConsole();
  const dir = mkdtempSync(join(tmpdir(), "svc-e2e-"));
  const stack = await startLocalStack({ dataDir: join(dir, "postgres"), postgresPort: await freePort(), bridgePort: 0, persistent: false });
  const port = String(await freePort());
  const base = `http://127.0.0.1:${port}`;
  // Installation analytics: the site beacon's test page is served from this origin (test/e2e/beacon.e2e.ts),
  // and the organization of this login reads the dashboard (test/e2e/analytics.e2e.ts).
  const beaconPage = await startBeaconPage();
  const analyticsOperator = `analytics-operator-${crypto.randomUUID().slice(0, 8)}`;
  // As npm start: every repository holds the engine's workflow (local/fake-codehost.ts).
  const codehost = await startFakeCodehost({ audience: base, webhookTarget: `${base}/webhooks/codehost`, workflows: localWorkflows() });
  // The site host on its own port: its origin (127.0.0.1 only, so localhost is a foreign origin) may post the forms.
  const sitePort = String(await freePort());
  const site = `http://127.0.0.1:${sitePort}`;
  // The website assistant answers through the fake messages provider, as under npm start (test/e2e/assistant.e2e.ts).
  const messagesProvider = await startFakeModelProvider("messages");
  const ssoKey = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64");
  const env = {
    ...localWorkerDefaults(stack, port, ssoKey),
    SVC_CODEHOST_API_BASE: codehost.url,
    SVC_CODEHOST_APP_ID: codehost.app.id,
    SVC_CODEHOST_APP_PRIVATE_KEY: codehost.app.privateKeyPem,
    SVC_CODEHOST_APP_WEBHOOK_SECRET: codehost.app.webhookSecret,
    // Provider keys can be stored (sealed under v1) and tried from the console.
    SVC_PROVIDER_KEY_SECRET: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64"),
    SVC_SITE_ORIGIN: `${site},${beaconPage.url}`,
    SVC_MESSAGES_PROVIDER_API_BASE: messagesProvider.url,
    SVC_CMS_MODEL_API_KEY: "sk-e2e-assistant",
    SVC_ANALYTICS_SURROGATE_SECRET: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex"),
    SVC_ANALYTICS_OPERATOR_ORG: analyticsOperator,
    // As npm start: the local cron route, for `svc cron run` (test/e2e/crons.e2e.ts).
    SVC_LOCAL_CRON_SECRET: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex"),
  };
  const parsed = parseConfig(env);
  if (!parsed.ok) throw new Error(`the end-to-end configuration is refused: ${JSON.stringify(parsed.errors)}`);
  await partitionPassFromNode(parsed.config);
  const envFile = join(dir, "worker.env");
  writeEnvFile(envFile, env);
  const wrangler = startWrangler({ port, envFile, persistTo: join(dir, "wrangler"), output: "ignore" });
  const siteHost = await buildSite(base, "ignore").then(
    () => startSite({ port: sitePort, output: "ignore" }),
    () => null,
  );
  const stop = async () => {
    wrangler.kill("SIGTERM");
    siteHost?.kill("SIGTERM");
    await codehost.close();
    await messagesProvider.close();
    await beaconPage.close();
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  if (!siteHost) {
    await stop();
    throw new Error("npm run site:build failed for the end-to-end tests (its errors are above)");
  }
  if (!(await workerAnswers(port)) || !(await siteAnswers(sitePort))) {
    await stop();
    throw new Error("wrangler dev did not start for the end-to-end tests");
  }
  project.provide("e2eDatabase", { app: stack.urls.inheriting.app, operator: stack.urls.inheriting.operator });
  project.provide("e2e", { base, codehost: codehost.url, chromium, site, beaconPage: beaconPage.url, analyticsOperator, workerEnv: env });
  return stop;
}

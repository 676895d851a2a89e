// `npm start`: the whole control plane on this machine. PostgreSQL (data kept in .data/ across
// restarts), the bridge, migrations and roles, a demo organization, then the Worker under
// `wrangler dev`. Every SVC_* variable of this shell reaches the Worker and wins over the defaults.
import { mkdirSync } from "node:fs";
import { formatConfigErrors, parseConfig } from "../worker/config/parse";
import { DATA_DIR, LOCAL_ENV_FILE, persistentSecret, writeEnvFile } from "../cli/env-file";
import { localWorkerDefaults, startLocalStack, type LocalStack } from "./stack";
import { ensureDemoOrganization, DEMO_SLUG } from "./demo";
import { startWrangler, workerAnswers } from "./wrangler";
import { buildConsole } from "./console-build";
import { buildSite, siteAnswers, startSite } from "./site";
import { startLocalFakeCodehost } from "./fake-codehost";
import { startLocalFakeBilling } from "./fake-billing";
import { startLocalModelProviders } from "./fake-model-providers";
import { partitionPassFromNode } from "../cli/commands/partitions";
import { startLocalCrons } from "./crons";

const POSTGRES_PORT = 54329;
const POSTGRES_DATA_DIR = DATA_DIR + "postgres";
const BRIDGE_PORT = 54330;

/** The local defaults, with every SVC_* variable of this shell laid over them. */
function workerEnvironment(stack: LocalStack, port: string, fakes: Record<string, string>): Record<string, string> {
  const fromShell = Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => entry[0].startsWith("SVC_") && entry[1] !== undefined),
  );
  return { ...localWorkerDefaults(stack, port, persistentSecret("ee-sso.key")), ...fakes, ...fromShell };
}

async function main(): Promise<number> {
  mkdirSync(DATA_DIR, { recursive: true });
  const port = process.env.SVC_PORT ?? "8080";
  console.log("starting PostgreSQL and the bridge ...");
  const stack = await startLocalStack({ dataDir: POSTGRES_DATA_DIR, postgresPort: POSTGRES_PORT, bridgePort: BRIDGE_PORT, persistent: true });
  const codehost = await startLocalFakeCodehost(port);
  const billing = await startLocalFakeBilling(port);
  const modelProviders = await startLocalModelProviders();
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await codehost?.close().catch(() => {});
    await billing?.close().catch(() => {});
    await modelProviders.close().catch(() => {});
    await stack.stop().catch(() => {});
    process.exit(code);
  };

  // The site host on a port of its own (SITE_PORT, default 8081); its origin may post the forms.
  const sitePort = process.env.SITE_PORT ?? "8081";
  const siteVariables = { SVC_SITE_ORIGIN: `http://127.0.0.1:${sitePort},http://localhost:${sitePort}` };
  // Installation analytics can be tried locally: the site's beacon records (a surrogate secret kept in
  // .data/), and the demo organization's owners read the dashboard.
  const analyticsVariables = {
    SVC_ANALYTICS_SURROGATE_SECRET: Buffer.from(persistentSecret("analytics-surrogate.key"), "base64").toString("hex"),
    SVC_ANALYTICS_OPERATOR_ORG: DEMO_SLUG,
  };
  // The Worker's local-only cron route (local/crons.ts, `svc cron run`) answers only with this secret.
  const cronVariables = { SVC_LOCAL_CRON_SECRET: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex") };
  const env = workerEnvironment(stack, port, {
    ...cronVariables,
    ...codehost?.variables,
    ...billing?.variables,
    ...modelProviders.variables,
    ...siteVariables,
    ...analyticsVariables,
  });
  const parsed = parseConfig(env);
  if (!parsed.ok) {
    console.error(formatConfigErrors(parsed.errors));
    await stop(Math.max(...parsed.errors.map((error) => error.exitStatus)));
  }
  writeEnvFile(LOCAL_ENV_FILE, env);
  await ensureDemoOrganization(env.SVC_DATABASE_URL!);
  if (parsed.ok) {
    const report = await partitionPassFromNode(parsed.config);
    if (report?.created.length) console.log(`created event partitions: ${report.created.join(", ")}`);
  }

  console.log("building the console ...");
  await buildConsole();
  console.log("building the site ...");
  await buildSite(env.SVC_APP_BASE_URL ?? `http://127.0.0.1:${port}`).catch(async (error: Error) => {
    console.error(`${error.message}: see its output above.`);
    await stop(1);
  });
  const wrangler = startWrangler({ port, envFile: LOCAL_ENV_FILE, persistTo: DATA_DIR + "wrangler", output: "inherit" });
  const site = await startSite({ port: sitePort, output: "inherit" });
  wrangler.on("exit", (code) => {
    site.kill("SIGTERM");
    void stop(code ?? 1);
  });
  site.on("exit", (code) => {
    wrangler.kill("SIGTERM");
    void stop(code ?? 1);
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      wrangler.kill("SIGTERM");
      site.kill("SIGTERM");
      void stop(0);
    });
  }
  if ((await workerAnswers(port)) && (await siteAnswers(sitePort))) {
    const crons = startLocalCrons({ base: `http://127.0.0.1:${port}`, secret: env.SVC_LOCAL_CRON_SECRET! });
    wrangler.on("exit", () => crons.stop());
    console.log(`
control plane  http://127.0.0.1:${port}   (the console; GET /health, /readyz, /openapi.json, /metrics, /.well-known/svc-enterprise)
site           http://127.0.0.1:${sitePort}   (the static site and docs; its forms post to the control plane)
PostgreSQL     127.0.0.1:${POSTGRES_PORT}  (data in ${POSTGRES_DATA_DIR})
bridge         ws://${stack.bridge}  (WebSocket-to-TCP for the neon driver)
${codehost ? codehost.banner + "\n" : ""}${billing ? billing.banner + "\n" : ""}${modelProviders.banner}demo org       "${DEMO_SLUG}"

sign in as a person at http://127.0.0.1:${port}/: on the fake code host's page pick an account, or create one with
the App installed on it (an organization of its own); README.md's quick start goes on from there
an engine token for the demo organization:
  npm run --silent svc -- tokens create --org ${DEMO_SLUG} --kind engine
a CLI token acting for a member who signed in (its scopes work while their role holds them):
  npm run --silent svc -- tokens create --org <slug> --kind cli --person <login> --scope tokens.manage
the Cron Triggers of wrangler.toml fire on their schedules (UTC); \`svc cron list\` shows them, and one runs now with:
  npm run --silent svc -- cron run sweep
the operator portal at http://127.0.0.1:${port}/admin, after making an operator (password on standard input):
  npm run --silent svc -- admin bootstrap <login>
Ctrl-C stops everything.
`);
  }
  return 0;
}

await main();

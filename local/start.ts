// `npm start`: the whole control plane on this machine. PostgreSQL (data kept in .data/ across
// restarts), the bridge, migrations and roles, a demo organization, then the Worker under
// `wrangler dev`. Every SVC_* variable of this shell reaches the Worker and wins over the defaults.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { formatConfigErrors, parseConfig } from "../worker/config/parse";
import { DATA_DIR, LOCAL_ENV_FILE, writeEnvFile } from "./env-file";
import { startLocalStack, type LocalStack } from "./stack";
import { ensureDemoOrganization, DEMO_SLUG } from "./demo";
import { postgresDataDir } from "./data-dir";
import { partitionPassFromNode } from "../db/cli/commands/partitions";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const POSTGRES_PORT = 54329;
const BRIDGE_PORT = 54330;

function persistentSecret(file: string): string {
  const path = DATA_DIR + file;
  if (!existsSync(path)) writeFileSync(path, btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32)))), { mode: 0o600 });
  return readFileSync(path, "utf8").trim();
}

function workerEnvironment(stack: LocalStack, port: string): Record<string, string> {
  const base = `http://127.0.0.1:${port}`;
  const defaults: Record<string, string> = {
    SVC_PORT: port,
    SVC_DATABASE_URL: stack.urls.app,
    SVC_ADMIN_DATABASE_URL: stack.urls.operator,
    SVC_MIGRATION_DATABASE_URL: stack.urls.migration,
    SVC_MAINTENANCE_DATABASE_URL: stack.urls.maintenance,
    SVC_DATABASE_WS_PROXY: stack.bridge,
    SVC_CODEHOST_CLIENT_ID: "local-client-id",
    SVC_CODEHOST_CLIENT_SECRET: "local-client-secret",
    SVC_CODEHOST_REDIRECT_URI: `${base}/auth/callback`,
    SVC_APP_BASE_URL: base,
    SVC_EE_SSO_KEY: persistentSecret("ee-sso.key"),
    SVC_INSECURE_COOKIES: "1",
  };
  const fromShell = Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => entry[0].startsWith("SVC_") && entry[1] !== undefined),
  );
  return { ...defaults, ...fromShell };
}

/** Waits until the Worker answers /health (wrangler prints its own lines first). */
async function serving(port: string): Promise<boolean> {
  for (let attempt = 0; attempt < 240; attempt++) {
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then((response) => response.ok, () => false);
    if (ok) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  console.error(`The Worker did not answer on port ${port} within a minute; see wrangler's output above.`);
  return false;
}

async function main(): Promise<number> {
  mkdirSync(DATA_DIR, { recursive: true });
  const port = process.env.SVC_PORT ?? "8080";
  console.log("starting PostgreSQL and the bridge ...");
  const stack = await startLocalStack({ dataDir: postgresDataDir(), postgresPort: POSTGRES_PORT, bridgePort: BRIDGE_PORT, persistent: true });
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await stack.stop().catch(() => {});
    process.exit(code);
  };

  const env = workerEnvironment(stack, port);
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

  const wrangler = spawn(
    ROOT + "node_modules/.bin/wrangler",
    ["dev", "--ip", "127.0.0.1", "--port", port, "--env-file", LOCAL_ENV_FILE, "--persist-to", DATA_DIR + "wrangler", "--show-interactive-dev-session=false"],
    { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" } },
  );
  wrangler.on("exit", (code) => void stop(code ?? 1));
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      wrangler.kill("SIGTERM");
      void stop(0);
    });
  }
  if (await serving(port)) {
    console.log(`
control plane  http://127.0.0.1:${port}   (GET /health, /readyz, /openapi.json)
PostgreSQL     127.0.0.1:${POSTGRES_PORT}  (data in ${postgresDataDir()})
bridge         ws://${stack.bridge}  (WebSocket-to-TCP for the neon driver)
demo org       "${DEMO_SLUG}"

an engine token for the demo organization:
  npm run --silent svc -- tokens create --org ${DEMO_SLUG} --kind engine
a CLI token that may manage tokens:
  npm run --silent svc -- tokens create --org ${DEMO_SLUG} --kind cli --scope tokens.manage
Ctrl-C stops everything.
`);
  }
  return 0;
}

await main();

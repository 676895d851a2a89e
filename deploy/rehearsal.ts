// `npm run deploy:rehearse`: the deploy's steps end to end on this machine, with no account. A local
// stack stands in for Neon (its logins made as docs/deploy.md makes them), a secrets file of the
// template's shape for the operator's: the configuration check, the builds and the migrations run for
// real; the uploads are printed and bundled with `wrangler deploy --dry-run`, and the control plane's
// bundle is served by Miniflare (bench/local-worker.ts) and smoke-tested like a deployment.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveBundle, type ServedBundle } from "../bench/local-worker";
import { freePort } from "../local/free-port";
import { startLocalStack, type LocalStack } from "../local/stack";
import { deploySteps, type Io, resolveDeployment, runSteps } from "./plan";
import { SECRETS_EXAMPLE, secretsExample } from "./variables";

/** A value of the right shape for every secret of the template, the databases' from the local stack. */
function rehearsalSecrets(stack: LocalStack): Record<string, string> {
  const hex = (bytes: number) => randomBytes(bytes).toString("hex");
  const key = () => randomBytes(32).toString("base64");
  const values: Record<string, () => string> = {
    SVC_DATABASE_URL: () => stack.urls.app,
    SVC_ADMIN_DATABASE_URL: () => stack.urls.operator,
    SVC_MAINTENANCE_DATABASE_URL: () => stack.urls.maintenance,
    SVC_CODEHOST_CLIENT_SECRET: () => hex(20),
    // As a dashboard or a JSON file takes it: one line, `\n` for each line break.
    SVC_CODEHOST_APP_PRIVATE_KEY: () =>
      generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString().replaceAll("\n", "\\n"),
    SVC_CODEHOST_APP_WEBHOOK_SECRET: () => hex(32),
    SVC_EE_SSO_KEY: key,
    SVC_PROVIDER_KEY_SECRETS: () => `v1=${key()}`,
    SVC_BILLING_SECRET_KEY: () => `sk_test_${hex(12)}`,
    SVC_BILLING_WEBHOOK_SECRET: () => `whsec_${hex(16)}`,
    SVC_MAIL_API_KEY: () => `re_${hex(12)}`,
    SVC_ANALYTICS_SURROGATE_SECRET: () => hex(32),
    SVC_CMS_MODEL_API_KEY: () => `sk-${hex(16)}`,
  };
  return Object.fromEntries(
    Object.keys(secretsExample()).map((name) => {
      const make = values[name];
      if (!make) throw new Error(`The rehearsal has no value for ${name} of ${SECRETS_EXAMPLE}: give it one in deploy/rehearsal.ts.`);
      return [name, make()];
    }),
  );
}

/** Runs the rehearsal of `env`'s deploy; true when every step passed. Everything it started is stopped and removed. */
export async function rehearse(options: { env: string; io: Io }): Promise<boolean> {
  const { env, io } = options;
  const dir = mkdtempSync(join(tmpdir(), "svc-deploy-rehearsal-"));
  let stack: LocalStack | null = null;
  const served: ServedBundle[] = [];
  try {
    stack = await startLocalStack({ dataDir: join(dir, "data"), postgresPort: await freePort(), bridgePort: 0, persistent: false });
    const local = stack;
    const secrets = join(dir, `secrets.${env}.json`);
    writeFileSync(secrets, JSON.stringify(rehearsalSecrets(local), null, 2), { mode: 0o600 });
    io.say(`Rehearsing the deploy of --env ${env} against a local stack in ${dir} (nothing leaves this machine).`);
    const steps = deploySteps(resolveDeployment({ env, secrets, out: join(dir, "build") }), io, {
      migrationUrl: local.urls.migration,
      serve: async (outdir, variables) => {
        const bundle = await serveBundle(local, outdir, { objectsDir: join(dir, "objects"), variables, output: io.output });
        served.push(bundle);
        return bundle.base;
      },
      // No request to the internet: no telemetry, no Request.cf.
      env: { WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
    });
    return await runSteps(steps, io);
  } finally {
    for (const bundle of served) await bundle.miniflare.dispose();
    await stack?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// `npm run deploy` (deploy/plan.ts): the steps in order with the exact commands --dry-run prints,
// a pull request's preview under names of its own on its Neon branch, the first failing step stopping
// the deploy with what to do, and the smoke tests that wait for /readyz to report the stamp.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type Deployment, deploySteps, pointedAt, resolveDeployment, runSteps, stampOf, type Step } from "../../deploy/plan";
import { expectReady, expectSite } from "../../deploy/smoke";
import { secretsExample } from "../../deploy/variables";

const stamp = { version: "v1.4.0-2-g0123456789ab", commit: "0123456789abcdef0123456789abcdef01234567", clean: true };
const dir = mkdtempSync(join(tmpdir(), "svc-deploy-plan-"));

/** What the deploy says and what its commands print, and whether it went through. */
async function deploy(deployment: Deployment, dryRun: boolean): Promise<{ ok: boolean; said: string[]; steps: Step[] }> {
  const said: string[] = [];
  const io = { say: (line: string) => said.push(line), output: () => {} };
  const steps = deploySteps(deployment, io);
  return { ok: await runSteps(steps, io, dryRun), said, steps };
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("npm run deploy -- --env production --dry-run", () => {
  it("prints each step and its exact command, local work first, stamping the Worker with the version and commit", async () => {
    const { ok, said } = await deploy(resolveDeployment({ env: "production" }, stamp), true);
    expect(ok).toBe(true);
    expect(said).toEqual([
      "[1/9] Check the configuration",
      `  $ svc config check, in this process, on wrangler.toml [env.production.vars], deploy/secrets.production.json, SVC_VERSION=${stamp.version} and SVC_COMMIT=${stamp.commit}`,
      "[2/9] Build the console",
      expect.stringMatching(/^ {2}\$ SVC_CONSOLE_DIR=\/.+\/dist\/deploy\/production\/console npm run build:console$/),
      "[3/9] Build the site, its forms posting to the control plane",
      "  $ SITE_CONTROL_PLANE_URL=https://cp.example.com npm run site:build -- --out dist/deploy/production/site",
      "[4/9] Migrate the database: the owner on the direct endpoint (SVC_MIGRATION_DATABASE_URL)",
      "  $ npm run --silent svc -- migrate",
      "[5/9] Upload the Worker's secrets",
      "  $ npx wrangler secret bulk deploy/secrets.production.json --env production",
      "[6/9] Deploy the control plane",
      "  $ npx wrangler deploy --env production --assets dist/deploy/production/console --outdir dist/deploy/production/control-plane" +
        ` --var SVC_VERSION:${stamp.version} --var SVC_COMMIT:${stamp.commit}`,
      "[7/9] Deploy the site",
      "  $ npx wrangler deploy --config site/wrangler.toml --env production --assets dist/deploy/production/site --outdir dist/deploy/production/site-worker",
      "[8/9] Smoke-test the control plane: /readyz with the stamp",
      "  $ curl -sS https://cp.example.com/readyz",
      "[9/9] Smoke-test the site: its /api",
      "  $ curl -sS https://www.example.com/api",
    ]);
  });

  it("stamps the commit this checkout is at", () => {
    expect(stampOf().commit).toMatch(/^[0-9a-f]{40}$/);
  });

  it("refuses an environment that wrangler.toml does not define, and a --var that is not KEY:VALUE", () => {
    expect(() => resolveDeployment({ env: "staging" }, stamp)).toThrow("wrangler.toml has no [env.staging]; its environments: production, preview.");
    expect(() => resolveDeployment({ env: "production", vars: ["SVC_APP_BASE_URL"] }, stamp)).toThrow("--var SVC_APP_BASE_URL: give KEY:VALUE");
  });
});

describe("a pull request's preview", () => {
  const preview = resolveDeployment(
    {
      env: "preview",
      name: "svc-control-plane-pr-7",
      siteName: "svc-site-pr-7",
      databaseHost: "ep-calm-7-pooler.us-east-2.aws.neon.tech",
      vars: ["SVC_APP_BASE_URL:https://svc-control-plane-pr-7.acme.workers.dev", "SVC_SITE_ORIGIN:https://svc-site-pr-7.acme.workers.dev"],
    },
    stamp,
  );

  it("deploys under its own names, its addresses passed on as plain variables, and uploads the secrets pointed at its branch", async () => {
    const { said } = await deploy(preview, true);
    expect(said).toContain("  $ npx wrangler secret bulk dist/deploy/preview/secrets.preview.json --env preview --name svc-control-plane-pr-7");
    expect(said).toContain(
      "  $ npx wrangler deploy --env preview --name svc-control-plane-pr-7 --assets dist/deploy/preview/console --outdir dist/deploy/preview/control-plane" +
        ` --var SVC_VERSION:${stamp.version} --var SVC_COMMIT:${stamp.commit}` +
        " --var SVC_APP_BASE_URL:https://svc-control-plane-pr-7.acme.workers.dev --var SVC_SITE_ORIGIN:https://svc-site-pr-7.acme.workers.dev",
    );
    expect(said).toContain(
      "  $ npx wrangler deploy --config site/wrangler.toml --env preview --name svc-site-pr-7 --assets dist/deploy/preview/site --outdir dist/deploy/preview/site-worker",
    );
    expect(said).toContain("  $ curl -sS https://svc-control-plane-pr-7.acme.workers.dev/readyz");
    expect(said).toContain("  $ curl -sS https://svc-site-pr-7.acme.workers.dev/api");
  });

  it("points every database URL of the secrets at the branch's pooled host, and nothing else", () => {
    const secrets = { SVC_DATABASE_URL: "postgresql://svc_app_login:pw@ep-main-1-pooler.us-east-2.aws.neon.tech/neondb?sslmode=require", SVC_EE_SSO_KEY: "k" };
    expect(pointedAt(secrets, "ep-calm-7-pooler.us-east-2.aws.neon.tech")).toEqual({
      SVC_DATABASE_URL: "postgresql://svc_app_login:pw@ep-calm-7-pooler.us-east-2.aws.neon.tech/neondb?sslmode=require",
      SVC_EE_SSO_KEY: "k",
    });
    expect(() => pointedAt(secrets, "ep-calm-7.us-east-2.aws.neon.tech")).toThrow("is not a pooled host");
  });
});

describe("a deploy that fails", () => {
  const secretsFile = (values: Record<string, string>) => {
    const file = join(mkdtempSync(join(dir, "secrets-")), "secrets.production.json");
    writeFileSync(file, JSON.stringify(values));
    return file;
  };
  const production = (secrets: string) => resolveDeployment({ env: "production", secrets, out: join(dir, "out") }, stamp);

  it("stops at the first step that fails and says what to do, running nothing after it", async () => {
    vi.stubEnv("SVC_MIGRATION_DATABASE_URL", "postgresql://neondb_owner:pw@ep-main-1-pooler.us-east-2.aws.neon.tech/neondb");
    const { ok, said } = await deploy(production(secretsFile({ SVC_APP_BASE_URL: "https://cp.example.com" })), false);
    expect(ok).toBe(false);
    const stopped = said.join("\n");
    expect(stopped).toContain("The deploy stopped at step 1, Check the configuration:");
    expect(stopped).toContain("SVC_APP_BASE_URL is plain configuration: set it in wrangler.toml [env.production.vars]");
    // The migration URL on the pooled endpoint, refused by the same sentence as `svc config check` and `svc migrate`.
    expect(stopped).toContain("SVC_MIGRATION_DATABASE_URL names a pooled endpoint (its host ends in -pooler)");
    expect(stopped).toContain("What to do: Put each variable named above where deploy/variables.md says it belongs");
    expect(said).not.toContain("[2/9] Build the console");
  });

  it("refuses a secrets file that is missing, and a working tree that is not the commit it would stamp", async () => {
    const missing = await deploy(production(join(dir, "nowhere.json")), false);
    expect(missing.said.join("\n")).toContain("nowhere.json does not exist: copy deploy/secrets.example.json there");
    vi.stubEnv("SVC_MIGRATION_DATABASE_URL", "postgresql://neondb_owner:pw@ep-main-1.us-east-2.aws.neon.tech/neondb");
    const dirty = await deploy({ ...production(secretsFile({})), stamp: { ...stamp, clean: false } }, false);
    expect(dirty.said.join("\n")).toContain(`The working tree differs from commit ${stamp.commit}, which /readyz would report`);
  });

  it("stops when svc config check refuses the variables, as the Worker would at its start", async () => {
    vi.stubEnv("SVC_MIGRATION_DATABASE_URL", "postgresql://neondb_owner:pw@ep-main-1.us-east-2.aws.neon.tech/neondb");
    const refusals: string[] = [];
    vi.spyOn(console, "error").mockImplementation((line: string) => refusals.push(line));
    vi.spyOn(console, "log").mockImplementation(() => {});
    const filled = Object.fromEntries(Object.keys(secretsExample()).map((name) => [name, `filled-${name}`]));
    const { ok, said } = await deploy(production(secretsFile(filled)), false);
    expect(ok).toBe(false);
    expect(said.join("\n")).toContain("svc config check refused the configuration (exit 1), in the sentences above.");
    expect(refusals.join("\n")).toContain("SVC_DATABASE_URL must be a postgres:// or postgresql:// connection string.");
  });
});

describe("the smoke tests", () => {
  let answers: Array<{ status: number; body: unknown }> = [];
  let server: Server;
  let base = "";
  beforeAll(async () => {
    server = createServer((_request, response) => {
      const { status, body } = answers.shift() ?? { status: 503, body: {} };
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => server.close());
  const quickly = { deadlineMs: 1_000, intervalMs: 50 };

  it("wait for /readyz to answer ready with the version and commit just stamped", async () => {
    answers = [
      { status: 503, body: { ready: false, version: "old", commit: "old", reason: "The database did not answer within 3 seconds." } },
      { status: 200, body: { ready: true, version: "old", commit: "old" } },
      { status: 200, body: { ready: true, version: stamp.version, commit: stamp.commit } },
    ];
    expect(await expectReady(base, stamp, quickly)).toBe(`${base}/readyz: 200, ready, version ${stamp.version}, commit ${stamp.commit}`);
  });

  it("fail with the last answer when the stamp never shows", async () => {
    answers = Array.from({ length: 40 }, () => ({ status: 200, body: { ready: true, version: "old", commit: "old" } }));
    await expect(expectReady(base, stamp, quickly)).rejects.toThrow(
      `${base}/readyz answered 200 {"ready":true,"version":"old","commit":"old"} after 1 s; expected 200, ready, version ${stamp.version}, commit ${stamp.commit}.`,
    );
  });

  it("wait for the site's /api", async () => {
    answers = [{ status: 200, body: { endpoints: [] } }];
    expect(await expectSite(base, quickly)).toBe(`${base}/api: 200, the site's API`);
    answers = [];
    await expect(expectSite(base, quickly)).rejects.toThrow(`${base}/api answered 503 after 1 s; expected 200 with {"endpoints": []}.`);
  });
});

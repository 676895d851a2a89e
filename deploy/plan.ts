// `npm run deploy`: the steps from this checkout to a deployment that answers, in order, each with the
// command it runs and what to do when it fails (docs/deploy.md). Local work comes first, so a failing
// build changes nothing remote. The rehearsal (rehearsal.ts) runs the same steps against a local stack,
// with local stand-ins for those that need the real accounts.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { configCheck } from "../cli/commands/config-check";
import { isPooledEndpoint, POOLED_MIGRATION_URL } from "../db/migrate";
import { expectReady, expectSite, type Stamp } from "./smoke";
import { environmentsOf, placementProblems, readTemplate, ROOT, TEMPLATE, templateProblems, wranglerVars } from "./variables";

export const CONTROL_PLANE_CONFIG = "wrangler.toml";
export const SITE_CONFIG = "site/wrangler.toml";

/** A deploy that cannot start: a usage or configuration mistake, said in one sentence. */
export class DeployRefusal extends Error {
  override readonly name = "DeployRefusal";
}

export interface DeployOptions {
  /** The wrangler environment, in both wrangler.toml and site/wrangler.toml. */
  env: string;
  /** Default `deploy/secrets.<env>.json`. */
  secrets?: string;
  /** Other Worker names than the environment's (a pull request's preview). */
  name?: string;
  siteName?: string;
  /** `KEY:VALUE` plain variables over the environment's `[vars]`, as `wrangler deploy --var` takes them. */
  vars?: string[];
  /** Points the secrets' database URLs at this pooled host (a Neon branch's). */
  databaseHost?: string;
  /** Where the builds go; default `dist/deploy/<env>`. */
  out?: string;
}

export interface Deployment {
  env: string;
  secretsFile: string;
  /** What `wrangler secret bulk` uploads: the secrets file, or its copy pointed at `databaseHost`. */
  uploadFile: string;
  name?: string;
  siteName?: string;
  /** The environment's `[vars]` as wrangler reads them, and the `--var` values over them. */
  vars: Record<string, unknown>;
  overrides: Record<string, string>;
  databaseHost?: string;
  stamp: Stamp & { clean: boolean };
  out: { root: string; console: string; site: string; worker: string; siteWorker: string };
  /** The control plane's origin (SVC_APP_BASE_URL) and the site's (the first of SVC_SITE_ORIGIN). */
  base: string;
  siteOrigin: string;
}

const git = (...args: string[]) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

/** The version and commit /readyz will report; `clean` when no tracked file differs from the commit. */
export const stampOf = (): Deployment["stamp"] => ({
  version: git("describe", "--tags", "--always", "--abbrev=12"),
  commit: git("rev-parse", "HEAD"),
  clean: git("status", "--porcelain", "--untracked-files=no") === "",
});

const fromRoot = (path: string) => (isAbsolute(path) ? path : resolve(ROOT, path));

export function resolveDeployment(options: DeployOptions, stamp = stampOf()): Deployment {
  const { env } = options;
  for (const config of [CONTROL_PLANE_CONFIG, SITE_CONFIG]) {
    const known = environmentsOf(config);
    if (!known.includes(env)) throw new DeployRefusal(`${config} has no [env.${env}]; its environments: ${known.join(", ") || "none"}.`);
  }
  const overrides: Record<string, string> = {};
  for (const pair of options.vars ?? []) {
    const at = pair.indexOf(":");
    if (at < 1) throw new DeployRefusal(`--var ${pair}: give KEY:VALUE, as wrangler deploy --var takes it.`);
    overrides[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const vars = wranglerVars(CONTROL_PLANE_CONFIG, env);
  const plain = { ...vars, ...overrides };
  const base = plain.SVC_APP_BASE_URL;
  const siteOrigin = typeof plain.SVC_SITE_ORIGIN === "string" ? plain.SVC_SITE_ORIGIN.split(",")[0]!.trim() : "";
  if (typeof base !== "string" || !siteOrigin) {
    throw new DeployRefusal(
      `SVC_APP_BASE_URL and SVC_SITE_ORIGIN must be set for --env ${env} (in [env.${env}.vars] or with --var): the deploy checks the two Workers at these addresses.`,
    );
  }
  const root = fromRoot(options.out ?? join("dist", "deploy", env));
  const secretsFile = fromRoot(options.secrets ?? join("deploy", `secrets.${env}.json`));
  return {
    env,
    secretsFile,
    uploadFile: options.databaseHost ? join(root, `secrets.${env}.json`) : secretsFile,
    name: options.name,
    siteName: options.siteName,
    vars,
    overrides,
    databaseHost: options.databaseHost,
    stamp,
    out: { root, console: join(root, "console"), site: join(root, "site"), worker: join(root, "control-plane"), siteWorker: join(root, "site-worker") },
    base: base.replace(/\/+$/, ""),
    siteOrigin,
  };
}

/** The secrets file's values; a sentence naming the file when it is missing or not a JSON object. */
export function readSecrets(file: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "does not exist" : "is not JSON";
    throw new DeployRefusal(`${relative(ROOT, file)} ${reason}: copy deploy/secrets.example.json there and fill it in (docs/deploy.md step 6).`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new DeployRefusal(`${relative(ROOT, file)} must hold one JSON object.`);
  return parsed as Record<string, unknown>;
}

/** The secrets with every database URL's host replaced by `host` (a pull request's Neon branch, pooled). */
export function pointedAt(secrets: Record<string, unknown>, host: string): Record<string, unknown> {
  if (!isPooledEndpoint(`postgresql://login@${host}/`)) {
    throw new DeployRefusal(
      `--database-host ${host} is not a pooled host (its first label ends in -pooler): the Worker reaches the database through the pooler.`,
    );
  }
  return Object.fromEntries(
    Object.entries(secrets).map(([name, value]) => {
      if (!name.endsWith("_DATABASE_URL") || typeof value !== "string") return [name, value];
      const url = new URL(value);
      url.host = host;
      return [name, url.href];
    }),
  );
}

/** A step of the deploy: `run` null when it needs the real accounts and the rehearsal only prints it. */
export interface Step {
  title: string;
  /** The command as a person would type it: what --dry-run prints. */
  command: string;
  /** What to do when it fails. */
  remedy: string;
  run: (() => Promise<void>) | null;
}

export interface Io {
  /** The deploy's own lines. */
  say: (line: string) => void;
  /** What the commands it runs print. */
  output: (text: string) => void;
}

/** The rehearsal's stand-ins for what needs the real accounts. */
export interface Local {
  /** The local database's migration login. */
  migrationUrl: string;
  /** Serves the bundle built into `outdir` with the Worker's variables; resolves to its origin. */
  serve: (outdir: string, variables: Record<string, string>) => Promise<string>;
  /** Added to each command's environment. */
  env: Record<string, string>;
}

const SHELL_SAFE = /^[A-Za-z0-9_./:=@%+,-]+$/;
const shellQuote = (arg: string) => (SHELL_SAFE.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`);
const display = (argv: string[], env: Record<string, string> = {}) =>
  [...Object.entries(env).map(([name, value]) => `${name}=${shellQuote(value)}`), ...argv.map(shellQuote)].join(" ");

function exec(argv: string[], env: Record<string, string>, io: Io): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk: Buffer) => io.output(chunk.toString("utf8")));
    child.on("error", fail);
    child.on("close", (code) => (code === 0 ? done() : fail(new Error(`${display(argv)} exited with status ${code}.`))));
  });
}

const shown = (path: string) => (path.startsWith(ROOT) ? relative(ROOT, path) : path);

/** The deploy's steps; with `local`, the rehearsal's: the same, with local stand-ins for what needs the accounts. */
export function deploySteps(d: Deployment, io: Io, local?: Local): Step[] {
  const { env, stamp } = d;
  const commandEnv = local?.env ?? {};
  const migrationUrl = local ? local.migrationUrl : process.env.SVC_MIGRATION_DATABASE_URL;
  // `env` is shown in the command; `secretEnv` is not (a credential).
  const command = (title: string, argv: string[], env: Record<string, string>, remedy: string, secretEnv: Record<string, string> = {}): Step => ({
    title,
    command: display(argv, env),
    remedy,
    run: () => exec(argv, { ...commandEnv, ...env, ...secretEnv }, io),
  });
  // A step that needs the real accounts: printed by the rehearsal, followed by its local stand-ins.
  const remote = (step: Step, ...standIns: Step[]): Step[] => (local ? [{ ...step, run: null }, ...standIns] : [step]);
  const wrangler = (...args: string[]) => ["npx", "wrangler", ...args];
  const named = (name: string | undefined) => (name ? ["--name", name] : []);
  const plainVars = () =>
    Object.fromEntries(Object.entries({ ...d.vars, ...d.overrides }).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
  const stampVars = { SVC_VERSION: stamp.version, SVC_COMMIT: stamp.commit };
  // Paths as wrangler and the site's build take them, from the repository's root (the console's build resolves from console/).
  const workerDeploy = wrangler(
    ...["deploy", "--env", env, ...named(d.name), "--assets", shown(d.out.console), "--outdir", shown(d.out.worker)],
    ...Object.entries({ ...stampVars, ...d.overrides }).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
  );
  const siteDeploy = wrangler(
    ...["deploy", "--config", SITE_CONFIG, "--env", env, ...named(d.siteName)],
    ...["--assets", shown(d.out.site), "--outdir", shown(d.out.siteWorker)],
  );
  const notYet = `Nothing remote has changed yet; fix it and run the deploy again.`;
  const rollback = `npx wrangler rollback --env ${env}${d.name ? ` --name ${d.name}` : ""}`;
  let served = "";

  return [
    {
      title: "Check the configuration",
      command: `svc config check, in this process, on wrangler.toml [env.${env}.vars]${Object.keys(d.overrides).length ? ", --var" : ""}, ${shown(d.secretsFile)}, SVC_VERSION=${stamp.version} and SVC_COMMIT=${stamp.commit}`,
      remedy: `Put each variable named above where ${TEMPLATE} says it belongs and give it a value the sentence accepts. ${notYet}`,
      run: async () => {
        const problems = templateProblems(readTemplate());
        const given = readSecrets(d.secretsFile);
        const secrets = d.databaseHost ? pointedAt(given, d.databaseHost) : given;
        problems.push(...placementProblems({ env, secrets, secretsLabel: shown(d.secretsFile), vars: d.vars, overrides: d.overrides }));
        if (!migrationUrl)
          problems.push("SVC_MIGRATION_DATABASE_URL is not set in this shell: the migrations run as the project owner on the direct endpoint.");
        else if (isPooledEndpoint(migrationUrl)) problems.push(POOLED_MIGRATION_URL);
        if (!local && !stamp.clean)
          problems.push(`The working tree differs from commit ${stamp.commit}, which /readyz would report: commit or stash the changes.`);
        if (problems.length > 0) throw new DeployRefusal(`${problems.length === 1 ? "" : "\n  - "}${problems.join("\n  - ")}`);
        // What an earlier run built is built again (its own folders only: --out may name any folder).
        for (const folder of [d.out.console, d.out.site, d.out.worker, d.out.siteWorker]) rmSync(folder, { recursive: true, force: true });
        mkdirSync(d.out.root, { recursive: true });
        if (secrets !== given) writeFileSync(d.uploadFile, JSON.stringify(secrets, null, 2), { mode: 0o600 });
        const status = await configCheck(["check"], { ...plainVars(), ...(secrets as Record<string, string>), ...stampVars });
        if (status !== 0) throw new DeployRefusal(`svc config check refused the configuration (exit ${status}), in the sentences above.`);
      },
    },
    command("Build the console", ["npm", "run", "build:console"], { SVC_CONSOLE_DIR: d.out.console }, notYet),
    command(
      "Build the site, its forms posting to the control plane",
      ["npm", "run", "site:build", "--", "--out", shown(d.out.site)],
      { SITE_CONTROL_PLANE_URL: d.base },
      notYet,
    ),
    command(
      "Migrate the database: the owner on the direct endpoint (SVC_MIGRATION_DATABASE_URL)",
      ["npm", "run", "--silent", "svc", "--", "migrate"],
      {},
      "A failed migration applied none of the pending ones (they run in one transaction), and the running version serves on as before. " +
        "Unreachable: check SVC_MIGRATION_DATABASE_URL and the compute (docs/operating.md, a suspended or over-quota compute). " +
        "Waiting on a lock: docs/operating.md, a stuck migration. A migration that fails: fix it in a new commit.",
      { SVC_MIGRATION_DATABASE_URL: migrationUrl ?? "" },
    ),
    ...remote(
      command(
        "Upload the Worker's secrets",
        wrangler("secret", "bulk", shown(d.uploadFile), "--env", env, ...named(d.name)),
        {},
        "Check CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID (docs/deploy.md step 1); the migrated schema keeps the running version working. Run the deploy again.",
      ),
    ),
    ...remote(
      command(
        "Deploy the control plane",
        workerDeploy,
        {},
        "The database is migrated and the secrets uploaded; the previous version still serves. Fix what wrangler names and run the deploy again.",
      ),
      command("Bundle the control plane as the deploy uploads it (wrangler deploy --dry-run)", [...workerDeploy, "--dry-run"], {}, notYet),
      {
        title: "Serve the bundle against the local database (Miniflare, as the benchmarks do)",
        command: `serveBundle(${shown(d.out.worker)}) with the Worker's variables: [env.${env}.vars], the secrets file and the stamp`,
        remedy: "Read the Worker's output above: a refused configuration or a failed start names its cause.",
        run: async () => {
          served = await local!.serve(d.out.worker, { ...plainVars(), ...(readSecrets(d.uploadFile) as Record<string, string>), ...stampVars });
        },
      },
    ),
    ...remote(
      command(
        "Deploy the site",
        siteDeploy,
        {},
        "The control plane is deployed and serves; the previous site still serves. Fix what wrangler names and run the deploy again.",
      ),
      command("Bundle the site as the deploy uploads it (wrangler deploy --dry-run)", [...siteDeploy, "--dry-run"], {}, notYet),
    ),
    ...remote(
      {
        title: "Smoke-test the control plane: /readyz with the stamp",
        command: `curl -sS ${d.base}/readyz`,
        remedy:
          "The new version serves. A reason naming a login that bypasses row-level security or a missing migration: fix that (docs/deploy.md steps 4 and 5). " +
          `Anything else: roll back with \`${rollback}\` (docs/operating.md, a bad release).`,
        run: async () => io.say(`  ${await expectReady(d.base, stamp)}`),
      },
      {
        title: "Smoke-test the served bundle: /readyz with the stamp",
        command: `curl -sS <the served bundle>/readyz`,
        remedy: "Read the Worker's output above and /readyz's reason.",
        run: async () => io.say(`  ${await expectReady(served, stamp, { deadlineMs: 30_000, intervalMs: 500 })}`),
      },
    ),
    ...remote({
      title: "Smoke-test the site: its /api",
      command: `curl -sS ${d.siteOrigin}/api`,
      remedy: `The site's new version serves. Check the site's route in ${SITE_CONFIG} [env.${env}] and that SVC_SITE_ORIGIN names it; roll it back with \`npx wrangler rollback --config ${SITE_CONFIG} --env ${env}\`.`,
      run: async () => io.say(`  ${await expectSite(d.siteOrigin)}`),
    }),
  ];
}

/** Runs (or, with `dryRun`, prints) the steps in order; stops at the first that fails, saying what to do. */
export async function runSteps(steps: Step[], io: Io, dryRun = false): Promise<boolean> {
  for (const [index, step] of steps.entries()) {
    io.say(`[${index + 1}/${steps.length}] ${step.title}`);
    io.say(`  $ ${step.command}`);
    if (dryRun) continue;
    if (!step.run) {
      io.say("  (needs the real accounts: printed, not run)");
      continue;
    }
    try {
      await step.run();
    } catch (error) {
      io.say(`\nThe deploy stopped at step ${index + 1}, ${step.title}: ${error instanceof Error ? error.message : String(error)}`);
      io.say(`What to do: ${step.remedy}`);
      return false;
    }
  }
  return true;
}

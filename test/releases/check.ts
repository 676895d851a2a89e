// The release check (test/releases/README.md): a release's Worker, built from its own tree, served by
// Miniflare against a fresh stack migrated with THIS checkout's migrations, and driven over HTTP as the
// engines and the console drive it. During a gradual deployment, and after `wrangler rollback`, the
// previous release runs on the newer schema; this finds a migration that breaks it before production does.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { type Answer, send } from "../../bench/fault-work";
import { buildWorker, type ServedBundle, serveBundle, startBenchStack } from "../../bench/local-worker";
import { applyMigrations, type Migration } from "../../db/migrate";
import { migrationsOnDisk } from "../../db/migrations-on-disk";
import type { DatabaseUrls } from "../../local/provision";
import type { LocalStack } from "../../local/stack";
import { hashToken } from "../../worker/http/hash";
import { displayPrefix, newTokenValue } from "../../worker/tokens/secret";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The file naming the release production runs, which `npm test` checks (db/README.md, "Releases: expand, then contract"). */
export const PREVIOUS_RELEASE_FILE = join(ROOT, "db", "previous-release");

/** The commit db/previous-release names: its one line that is not a comment. */
export function previousRelease(): string {
  const lines = readFileSync(PREVIOUS_RELEASE_FILE, "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  if (lines.length !== 1 || !/^[0-9a-f]{40}$/.test(lines[0]!)) {
    throw new Error(`${PREVIOUS_RELEASE_FILE} must hold one full 40-hex commit hash (and comment lines starting with #); it holds ${JSON.stringify(lines)}.`);
  }
  return lines[0]!;
}

/** A temporary folder for a run's trees, bundles and stack; the caller removes it. */
export function workFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), "svc-release-"));
  // Passable by others: run as root, PostgreSQL runs as a user of its own that must reach its data inside.
  chmodSync(dir, 0o711);
  return dir;
}

/** `name` (a hash, a tag, a branch) as the full hash of its commit; an error naming it when this clone has no such commit. */
export function resolveCommit(name: string): string {
  try {
    return execFileSync("git", ["rev-parse", "--verify", "--quiet", `${name}^{commit}`], { cwd: ROOT, encoding: "utf8" }).trim();
  } catch {
    throw new Error(`No commit ${name} in this clone (${ROOT}): fetch it first (git fetch origin ${name}).`);
  }
}

/** A release's tree (from `git archive`) and its deploy bundle. */
export interface Release {
  commit: string;
  tree: string;
  /** `wrangler deploy --dry-run --outdir`: index.js and its modules. */
  outdir: string;
}

/**
 * Builds each commit's tree and bundle once under `dir`, answering the same one for the rest of the run
 * (the test file builds the previous release once for two of its tests).
 */
export function releaseBuilder(dir: string): (commit: string) => Release {
  const built = new Map<string, Release>();
  return (name) => {
    // A clone without the commit (a shallow one) fails here, naming what to fetch.
    const commit = resolveCommit(name);
    const known = built.get(commit);
    if (known) return known;
    const tree = join(dir, commit, "tree");
    const outdir = join(dir, commit, "bundle");
    mkdirSync(tree, { recursive: true });
    // The whole tree as committed: the generated files (the migration bundle, run_worker_first) are committed too.
    const archive = execFileSync("git", ["archive", "--format=tar", commit], { cwd: ROOT, maxBuffer: 1 << 30 });
    execFileSync("tar", ["-x", "-C", tree], { input: archive });
    installDependencies(commit, tree);
    try {
      buildWorker(outdir, tree);
    } catch (error) {
      throw new Error(`wrangler deploy --dry-run failed for ${commit} in ${tree}:\n${String((error as { stderr?: Buffer }).stderr ?? error)}`);
    }
    const release = { commit, tree, outdir };
    built.set(commit, release);
    return release;
  };
}

/**
 * What a bundle is made of, read from a package-lock.json: every package that is not a development
 * one (the Worker's dependencies and theirs), and the wrangler that bundles them.
 */
function bundleInputs(lockfile: string): string {
  const { packages } = JSON.parse(readFileSync(lockfile, "utf8")) as { packages: Record<string, { version?: string; dev?: boolean }> };
  const inputs = Object.entries(packages).filter(([path, entry]) => path !== "" && (!entry.dev || path === "node_modules/wrangler"));
  return inputs
    .map(([path, entry]) => `${path}@${entry.version}`)
    .sort()
    .join("\n");
}

/**
 * This checkout's node_modules (a symlink) when the release locked the same bundle inputs (a new
 * development tool changes nothing of a bundle); else the release's own, from its package-lock.json,
 * so that its bundle is made of what its deploy was made of (no scripts: the build needs none, and an
 * old release's install scripts are no business of this check).
 */
function installDependencies(commit: string, tree: string): void {
  if (bundleInputs(join(tree, "package-lock.json")) === bundleInputs(join(ROOT, "package-lock.json"))) {
    symlinkSync(join(ROOT, "node_modules"), join(tree, "node_modules"), "dir");
    return;
  }
  try {
    execFileSync("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline"], { cwd: tree, stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    throw new Error(
      `${commit} locks other dependencies of its bundle than this checkout, and \`npm ci --ignore-scripts\` in ${tree} failed:\n` +
        String((error as { stderr?: Buffer }).stderr ?? error),
    );
  }
}

type InheritingUrls = Pick<DatabaseUrls, "app" | "operator" | "maintenance">;

/**
 * The stack as a release that does not take its role per transaction sees it. This checkout's code
 * takes its role itself (SET LOCAL ROLE) and may be given logins that merely may take it; a previous
 * release relies on its login being the role or inheriting it, so it gets `inheritingUrls` where the
 * stack offers them (until it does, its `urls` are the roles themselves).
 */
export function asPreviousReleaseSees(stack: LocalStack & { inheritingUrls?: InheritingUrls }): LocalStack {
  return { ...stack, urls: { ...stack.urls, ...stack.inheritingUrls } };
}

/** Applies `planted` after this checkout's migrations, as a later migration would be (only in this stack). */
export async function plantMigration(stack: LocalStack, planted: Migration): Promise<void> {
  await withClient(stack.urls.migration, (client) => applyMigrations(client, [...migrationsOnDisk(), planted]));
}

/** The release's bundle in workerd against `stack`, with its own wrangler.toml's bindings; `output` takes the Worker's output. */
export function serveRelease(stack: LocalStack, release: Release, dir: string, output: (text: string) => void): Promise<ServedBundle> {
  return serveBundle(asPreviousReleaseSees(stack), release.outdir, {
    config: join(release.tree, "wrangler.toml"),
    objectsDir: mkdtempSync(join(dir, "objects-")),
    output,
  });
}

/**
 * The whole check of `commit` in `dir` (the caller's to remove): its bundle served against a fresh stack
 * of this checkout's migrations, every path driven.
 */
export async function checkRelease(commit: string, dir: string): Promise<PathResult[]> {
  const release = releaseBuilder(dir)(commit);
  const stack = await startBenchStack(join(dir, "data"));
  try {
    let output = "";
    const served = await serveRelease(stack, release, dir, (text) => (output += text));
    try {
      return await drivePaths(served.base, stack, "release-check", () => output);
    } finally {
      await served.miniflare.dispose();
    }
  } finally {
    await stack.stop();
  }
}

/** One path driven, with what it answered when it did not do what it should. */
export interface PathResult {
  path: string;
  outcome: "passed" | "failed" | "skipped";
  /** What was wrong: the status against the one expected, or the effect the database did not show; for a skip, what it needs. */
  detail?: string;
  status?: number;
  body?: string;
  /** The Worker's output while the path ran (its log line says why a 500 was one). */
  log?: string[];
}

/** A path that did not do what it should: the detail, and the answer when there was one. */
class Broken extends Error {
  constructor(
    readonly detail: string,
    readonly answer?: Answer,
  ) {
    super(detail);
  }
}

/** The answer's JSON when its status is `status`; broken otherwise. */
function expectAnswer<T>(answer: Answer, status: number): T {
  if (answer.status !== status) throw new Broken(`answered ${answer.status}, expected ${status}`, answer);
  try {
    return JSON.parse(answer.text) as T;
  } catch {
    throw new Broken(`answered ${status}, but its body is not JSON`, answer);
  }
}

/** An effect that must hold after the answer: broken, naming it, when it does not. */
function expectEffect(holds: boolean, effect: string, answer: Answer): void {
  if (!holds) throw new Broken(`answered ${answer.status}, but ${effect}`, answer);
}

export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

const CLAIMS_ENV = "release-claims";

interface Seeded {
  orgId: string;
  /** The engine token. */
  token: string;
  /** The session cookie's value. */
  session: string;
  /** The run waiting in CLAIMS_ENV, and the teardown command waiting for it. */
  runId: string;
  commandId: string;
}

/**
 * An organization with an engine token, an owner signed in (a session), an environment with a
 * workload run waiting in it and a teardown command: written as the superuser in SQL for this
 * checkout's schema, since the data production holds is what this schema made.
 */
async function seed(db: pg.Client, label: string): Promise<Seeded> {
  const orgId = crypto.randomUUID();
  const token = newTokenValue("engine");
  const session = newTokenValue("session");
  await db.query("BEGIN");
  try {
    await db.query("INSERT INTO organizations (id, slug, name) VALUES ($1, $2, $2)", [orgId, label]);
    await db.query("INSERT INTO tokens (org_id, kind, name, token_hash, display_prefix) VALUES ($1, 'engine', 'release check', $2, $3)", [
      orgId,
      await hashToken(token),
      displayPrefix(token),
    ]);
    const person = await db.query<{ id: string }>("INSERT INTO people (codehost_user_id, login, name) VALUES ($1, $2, $2) RETURNING id", [
      Math.floor(Math.random() * 1e12),
      label,
    ]);
    const personId = person.rows[0]!.id;
    await db.query("INSERT INTO memberships (org_id, person_id, role, role_source) VALUES ($1, $2, 'owner', 'manual')", [orgId, personId]);
    await db.query("INSERT INTO sessions (person_id, token_hash) VALUES ($1, $2)", [personId, await hashToken(session)]);
    await db.query(
      "INSERT INTO environments (org_id, env_id, repository, branch, state, last_sequence, last_event_at) VALUES ($1, $2, 'release/shop', 'main', 'ready', 1, now())",
      [orgId, CLAIMS_ENV],
    );
    const workload = await db.query<{ id: string }>("INSERT INTO workloads (org_id, name) VALUES ($1, 'release check') RETURNING id", [orgId]);
    const workloadId = workload.rows[0]!.id;
    const version = await db.query<{ id: string }>(
      `INSERT INTO workload_versions (org_id, workload_id, number, compiled) VALUES ($1, $2, 1, '{"steps":["load"]}') RETURNING id`,
      [orgId, workloadId],
    );
    const versionId = version.rows[0]!.id;
    await db.query("UPDATE workloads SET current_version_id = $1 WHERE id = $2", [versionId, workloadId]);
    const run = await db.query<{ id: string }>(
      "INSERT INTO workload_runs (org_id, env_id, workload_id, version_id, deadline_at) VALUES ($1, $2, $3, $4, now() + interval '1 hour') RETURNING id",
      [orgId, CLAIMS_ENV, workloadId, versionId],
    );
    const command = await db.query<{ id: string }>("INSERT INTO runtime_commands (org_id, env_id, kind) VALUES ($1, $2, 'teardown') RETURNING id", [
      orgId,
      CLAIMS_ENV,
    ]);
    await db.query("COMMIT");
    return { orgId, token, session, runId: run.rows[0]!.id, commandId: command.rows[0]!.id };
  } catch (error) {
    await db.query("ROLLBACK");
    throw error;
  }
}

interface Step {
  path: string;
  /** Paths whose effect this one builds on: skipped, saying so, when one of them did not pass. */
  needs?: string[];
  run: () => Promise<void>;
}

const NEW_ENVIRONMENT = "POST /v1/events: environment.ready of a new environment";
const MOVED_ON = "POST /v1/events: the same environment moving on (environment.sleeping)";
const CLAIM = "POST /v1/workloads/claim";
const COMMAND_CLAIM = "POST /v1/commands/claim";

/**
 * Drives the Worker at `base` as engines and the console do, each path checked for its status and its
 * effect in the database (read as the superuser), for a new organization named `label`. `output` reads
 * the Worker's output so far, so that a failed path carries the lines it made.
 */
export async function drivePaths(base: string, stack: LocalStack, label: string, output: () => string): Promise<PathResult[]> {
  return withClient(stack.superuserUrl, async (db) => {
    const seeded = await seed(db, label);
    const { orgId, token } = seeded;
    const one = async <T extends Record<string, unknown>>(text: string, params: unknown[]): Promise<T | undefined> => (await db.query<T>(text, params)).rows[0];
    const events = (...list: Array<Record<string, unknown>>) =>
      send(`${base}/v1/events`, { token, body: JSON.stringify({ events: list.map((event) => ({ occurredAt: new Date().toISOString(), ...event })) }) });
    const environment = (envId: string) =>
      one<{ state: string; last_sequence: string; repository: string; preview_urls: string[] }>(
        "SELECT state, last_sequence, repository, preview_urls FROM environments WHERE org_id = $1 AND env_id = $2",
        [orgId, envId],
      );
    let held: { id: string; leaseId: string } | null = null;
    let command: { id: string; leaseId: string } | null = null;

    const steps: Step[] = [
      {
        path: "GET /readyz",
        run: async () => {
          const answer = await send(`${base}/readyz`);
          expectEffect(expectAnswer<{ ready: boolean }>(answer, 200).ready === true, "its body does not say ready", answer);
        },
      },
      {
        path: NEW_ENVIRONMENT,
        run: async () => {
          const preview = "https://release-env.preview.example/";
          const answer = await events({
            id: "release-env-1",
            type: "environment.ready",
            envId: "release-env",
            sequence: 1,
            payload: { repository: "release/shop", branch: "feature/x", started_at: new Date().toISOString(), ttl_seconds: 86_400, preview_urls: [preview] },
          });
          expectAnswer(answer, 202);
          const row = await environment("release-env");
          expectEffect(
            row?.state === "ready" && Number(row.last_sequence) === 1 && row.preview_urls.join() === preview,
            `the environment row is ${JSON.stringify(row ?? null)}, not ready at sequence 1 with its preview address`,
            answer,
          );
        },
      },
      {
        path: MOVED_ON,
        needs: [NEW_ENVIRONMENT],
        run: async () => {
          const answer = await events({ id: "release-env-2", type: "environment.sleeping", envId: "release-env", sequence: 2, payload: {} });
          expectAnswer(answer, 202);
          const row = await environment("release-env");
          expectEffect(
            row?.state === "sleeping" && Number(row.last_sequence) === 2 && row.repository === "release/shop",
            `the environment row is ${JSON.stringify(row ?? null)}, not sleeping at sequence 2 in its repository`,
            answer,
          );
        },
      },
      {
        path: "POST /v1/events: a mixed batch (an environment, a run's records, a network decision, engine progress, an unknown type)",
        run: async () => {
          const suite = { runId: "release-suite" };
          const answer = await events(
            { id: "mixed-env", type: "environment.creating", envId: "release-mixed", sequence: 1, payload: { repository: "release/shop", branch: "b" } },
            { id: "mixed-run", type: "run.started", envId: "release-mixed", payload: { ...suite, name: "checkout" } },
            {
              id: "mixed-verdict",
              type: "verdict.recorded",
              envId: "release-mixed",
              payload: { ...suite, name: "pays", verdict: "fail", detail: "off by one" },
            },
            { id: "mixed-finished", type: "run.finished", envId: "release-mixed", payload: { ...suite, outcome: "failed", durationMs: 1_000 } },
            { id: "mixed-decision", type: "network.decision", envId: "release-mixed", payload: { host: "api.example", port: 443, decision: "denied" } },
            { id: "mixed-progress", type: "engine.progress", envId: "release-mixed", payload: { step: "load" } },
            { id: "mixed-unknown", type: "release.check.unknown", envId: "release-mixed", payload: {} },
          );
          const result = expectAnswer<{ accepted: number }>(answer, 202);
          expectEffect(result.accepted === 7, `it accepted ${result.accepted} of 7 events`, answer);
          const stored = await one<{ events: number; state: string | null; outcome: string | null; verdicts: number; denied: number }>(
            `SELECT (SELECT count(*)::int FROM events WHERE org_id = $1 AND id LIKE 'mixed-%') AS events,
                    (SELECT state FROM environments WHERE org_id = $1 AND env_id = 'release-mixed') AS state,
                    (SELECT outcome FROM engine_runs WHERE org_id = $1 AND run_id = 'release-suite') AS outcome,
                    (SELECT count(*)::int FROM run_verdicts WHERE org_id = $1 AND run_id = 'release-suite') AS verdicts,
                    (SELECT count(*)::int FROM network_decisions WHERE org_id = $1 AND host = 'api.example' AND NOT allowed) AS denied`,
            [orgId],
          );
          expectEffect(
            stored?.events === 7 && stored.state === "creating" && stored.outcome === "failed" && stored.verdicts === 1 && stored.denied === 1,
            `the database holds ${JSON.stringify(stored)}, not 7 events, the environment creating, the run failed with its verdict and the denied decision`,
            answer,
          );
        },
      },
      {
        path: CLAIM,
        run: async () => {
          const answer = await send(`${base}/v1/workloads/claim`, { token, body: JSON.stringify({ envId: CLAIMS_ENV, claimId: crypto.randomUUID() }) });
          const { run } = expectAnswer<{ run: { id: string; lease: { id: string } } | null }>(answer, 200);
          expectEffect(run?.id === seeded.runId, `it handed out ${JSON.stringify(run)}, not the waiting run ${seeded.runId}`, answer);
          held = { id: run!.id, leaseId: run!.lease.id };
          const row = await one<{ state: string; lease_id: string }>("SELECT state, lease_id FROM workload_runs WHERE id = $1", [held.id]);
          expectEffect(row?.state === "accepted" && row.lease_id === held.leaseId, `the run is ${JSON.stringify(row)}, not accepted under its lease`, answer);
        },
      },
      {
        path: "POST /v1/workloads/runs/{runId}/heartbeat",
        needs: [CLAIM],
        run: async () => {
          const before = await one<{ lease_expires_at: Date }>("SELECT lease_expires_at FROM workload_runs WHERE id = $1", [held!.id]);
          const answer = await send(`${base}/v1/workloads/runs/${held!.id}/heartbeat`, { token, body: JSON.stringify({ leaseId: held!.leaseId }) });
          expectAnswer(answer, 200);
          const after = await one<{ lease_expires_at: Date }>("SELECT lease_expires_at FROM workload_runs WHERE id = $1", [held!.id]);
          expectEffect(after!.lease_expires_at > before!.lease_expires_at, "the run's lease was not extended", answer);
        },
      },
      {
        path: "POST /v1/events: workload.finished of the claimed run",
        needs: [CLAIM],
        run: async () => {
          const answer = await events({
            id: "release-finished",
            type: "workload.finished",
            envId: CLAIMS_ENV,
            payload: { runId: held!.id, leaseId: held!.leaseId },
          });
          expectAnswer(answer, 202);
          const row = await one<{ state: string }>("SELECT state FROM workload_runs WHERE id = $1", [held!.id]);
          expectEffect(row?.state === "finished", `the run is ${row?.state}, not finished`, answer);
        },
      },
      {
        path: COMMAND_CLAIM,
        run: async () => {
          const answer = await send(`${base}/v1/commands/claim`, { token, body: "{}" });
          const { commands } = expectAnswer<{ commands: Array<{ id: string; kind: string; lease: { id: string } }> }>(answer, 200);
          const mine = commands?.find((leased) => leased.id === seeded.commandId);
          expectEffect(mine?.kind === "teardown", `it leased ${JSON.stringify(commands)}, not the waiting teardown ${seeded.commandId}`, answer);
          command = { id: mine!.id, leaseId: mine!.lease.id };
          const row = await one<{ state: string }>("SELECT state FROM runtime_commands WHERE id = $1", [command.id]);
          expectEffect(row?.state === "leased", `the command is ${row?.state}, not leased`, answer);
        },
      },
      {
        path: "POST /v1/commands/{id}/ack",
        needs: [COMMAND_CLAIM],
        run: async () => {
          const answer = await send(`${base}/v1/commands/${command!.id}/ack`, { token, body: JSON.stringify({ leaseId: command!.leaseId, outcome: "done" }) });
          expectAnswer(answer, 200);
          const row = await one<{ state: string; outcome: string }>("SELECT state, outcome FROM runtime_commands WHERE id = $1", [command!.id]);
          expectEffect(row?.state === "acknowledged" && row.outcome === "done", `the command is ${JSON.stringify(row)}, not acknowledged done`, answer);
        },
      },
      {
        path: "GET /rpc/environments.list (the console, signed in)",
        needs: [MOVED_ON],
        run: async () => {
          const input = encodeURIComponent(JSON.stringify({ orgId }));
          const answer = await send(`${base}/rpc/environments.list?input=${input}`, { headers: { cookie: `svc_session=${seeded.session}` } });
          const { result } = expectAnswer<{ result: { data: { items: Array<{ envId: string; state: string }> } } }>(answer, 200);
          const listed = result?.data?.items?.find((item) => item.envId === "release-env");
          expectEffect(listed?.state === "sleeping", `it lists ${JSON.stringify(listed ?? null)} for release-env, not the environment sleeping`, answer);
        },
      },
    ];

    const results: PathResult[] = [];
    for (const step of steps) {
      const unmet = (step.needs ?? []).filter((path) => results.find((result) => result.path === path)?.outcome !== "passed");
      if (unmet.length > 0) {
        results.push({ path: step.path, outcome: "skipped", detail: `needs ${unmet.join(" and ")}` });
        continue;
      }
      const from = output().length;
      try {
        await step.run();
        results.push({ path: step.path, outcome: "passed" });
      } catch (error) {
        // Anything else a step threw (a body of another shape, say) fails that path too, in its own words.
        const { detail, answer } = error instanceof Broken ? error : { detail: `threw ${String(error)}`, answer: undefined };
        const log = await linesSince(output, from, answer);
        results.push({ path: step.path, outcome: "failed", detail, status: answer?.status, body: answer?.text.slice(0, 1_000), log });
      }
    }
    return results;
  });
}

/**
 * The Worker's own lines since `from` (without workerd's envelope around each, the same line again,
 * quoted), once the line naming the answer's request id has arrived: the log reaches this process on
 * workerd's output, which may trail the answer. Waits a second at most.
 */
async function linesSince(output: () => string, from: number, answer: Answer | undefined): Promise<string[]> {
  const requestId = /"requestId":"([^"]+)"/.exec(answer?.text ?? "")?.[1];
  for (let waited = 0; requestId && !output().slice(from).includes(requestId) && waited < 1_000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return output()
    .slice(from)
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith('{"timestamp":'))
    .slice(-5);
}

export const failed = (results: readonly PathResult[]) => results.filter((result) => result.outcome === "failed");

/** The results for a person: one line a path, a failed one with its status, body and the Worker's lines. */
export function formatReport(commit: string, results: readonly PathResult[]): string {
  const count = (outcome: PathResult["outcome"]) => results.filter((result) => result.outcome === outcome).length;
  const lines = [`release ${commit} on this checkout's migrations: ${count("passed")} paths passed, ${count("failed")} failed, ${count("skipped")} skipped`];
  for (const result of results) {
    lines.push(`  ${result.outcome.padEnd(7)} ${result.path}${result.detail ? `: ${result.detail}` : ""}`);
    if (result.body !== undefined) lines.push(`          body: ${result.body}`);
    for (const line of result.log ?? []) lines.push(`          worker: ${line.slice(0, 600)}`);
  }
  return lines.join("\n");
}

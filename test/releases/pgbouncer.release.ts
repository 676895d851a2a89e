// This release through a real PgBouncer in transaction mode, as Neon's pooled endpoint serves it (db/README.md,
// "Logins and roles"): Debian's PgBouncer with consecutive transactions on different server connections,
// in front of the local server, reached by the Worker's logins (members of their roles that do not
// inherit them) through the bridge. The life of an organization works through it: engines reporting at
// once, claims, heartbeats, commands and the console (the release check's paths), the partition pass
// with a retention, and a deletion to completion, nothing left behind.
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { buildWorker, type ServedBundle, serveBundle, startBenchStack } from "../../bench/local-worker";
import { withNodeDb } from "../../db/node-pool";
import { freePort } from "../../local/free-port";
import { type LocalStack, localWorkerDefaults } from "../../local/stack";
import { configCheck } from "../../cli/commands/config-check";
import { runPartitionPass } from "../../worker/events/partitions/pass";
import { debianProgram } from "../setup/debian";
import { send } from "../../bench/fault-work";
import { hashToken } from "../../worker/http/hash";
import { displayPrefix, newTokenValue } from "../../worker/tokens/secret";
import { drivePaths, failed, formatReport, withClient, workFolder } from "./check";

const PGBOUNCER = "/usr/sbin/pgbouncer";
const CRON_SECRET = "pgbouncer-release-cron-secret";

let dir: string;
let stack: LocalStack;
let bouncer: ChildProcess | null = null;
let served: ServedBundle | null = null;
let output = "";
let bouncerPort = 0;

/** `url` reaching the same login and database through PgBouncer's port. */
const through = (url: string, port: number) => {
  const moved = new URL(url);
  moved.port = String(port);
  return moved.toString();
};

/** PgBouncer in transaction mode in front of the stack's server, knowing the logins of `urls`; its port. */
async function startPgBouncer(urls: string[]): Promise<number> {
  const program = debianProgram(PGBOUNCER, "pgbouncer", "The PgBouncer release test");
  const port = await freePort();
  const server = new URL(stack.superuserUrl);
  const logins = new Map(urls.map((url) => [decodeURIComponent(new URL(url).username), decodeURIComponent(new URL(url).password)]));
  writeFileSync(join(dir, "userlist.txt"), [...logins].map(([login, password]) => `"${login}" "${password}"`).join("\n"));
  writeFileSync(
    join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `svc = host=127.0.0.1 port=${server.port} dbname=svc`,
      "[pgbouncer]",
      `listen_addr = 127.0.0.1`,
      `listen_port = ${port}`,
      "unix_socket_dir =",
      // The bridge answers only clear-text password requests (PLATFORM-NOTES, "Verified for wave 5").
      "auth_type = plain",
      `auth_file = ${join(dir, "userlist.txt")}`,
      "pool_mode = transaction",
      "default_pool_size = 4",
      // Consecutive transactions on different server connections, as the pooled endpoint may run them.
      "server_round_robin = 1",
      `logfile = ${join(dir, "pgbouncer.log")}`,
      `pidfile = ${join(dir, "pgbouncer.pid")}`,
    ].join("\n"),
  );
  // As root PgBouncer runs as another user, which must read its files.
  for (const file of ["userlist.txt", "pgbouncer.ini"]) chmodSync(join(dir, file), 0o644);
  chmodSync(dir, 0o777);
  const ini = join(dir, "pgbouncer.ini");
  bouncer = spawn(program, process.getuid?.() === 0 ? ["-u", "postgres", ini] : [ini], { stdio: "ignore" });
  for (const stop = Date.now() + 10_000; ; ) {
    const client = new pg.Client({ connectionString: through(stack.urls.inheriting.app, port) });
    try {
      await client.connect();
      await client.end();
      return port;
    } catch (error) {
      await client.end().catch(() => {});
      if (Date.now() > stop) throw new Error(`PgBouncer did not answer: ${(error as Error).message}\n${readFileSync(join(dir, "pgbouncer.log"), "utf8")}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

beforeAll(async () => {
  dir = workFolder();
  const outdir = join(dir, "worker");
  buildWorker(outdir);
  stack = await startBenchStack(join(dir, "data"));
  const { inheriting, migration, ...logins } = stack.urls;
  const port = (bouncerPort = await startPgBouncer([...Object.values(logins), ...Object.values(inheriting)]));
  const moved = (urls: Record<string, string>) => Object.fromEntries(Object.entries(urls).map(([name, url]) => [name, through(url, port)]));
  // The Worker's logins, through PgBouncer; migrations stay on the direct server, as they must.
  const pooled = { ...stack, urls: { ...stack.urls, ...moved(logins), migration, inheriting: moved(inheriting) as typeof inheriting } };
  served = await serveBundle(pooled, outdir, {
    objectsDir: join(dir, "objects"),
    variables: { SVC_LOCAL_CRON_SECRET: CRON_SECRET },
    output: (text) => (output += text),
  });
}, 180_000);

afterAll(async () => {
  await served?.miniflare.dispose();
  bouncer?.kill();
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Rows as the superuser, straight to the server. */
const superuser = <T>(text: string, params: unknown[] = []) => withClient(stack.superuserUrl, async (client) => (await client.query(text, params)).rows as T[]);

/** One more engine token of the organization: its value. */
async function engineToken(orgId: string): Promise<string> {
  const token = newTokenValue("engine");
  await superuser("INSERT INTO tokens (org_id, kind, name, token_hash, display_prefix) VALUES ($1, 'engine', 'pgbouncer', $2, $3)", [
    orgId,
    await hashToken(token),
    displayPrefix(token),
  ]);
  return token;
}

/** The sweep run now, as the Cron Trigger runs it (local/README.md): what it did to each due deletion. */
const sweep = async () =>
  (
    JSON.parse((await send(`${served!.base}/local/cron?job=sweep`, { method: "POST", token: CRON_SECRET })).text) as {
      report: { deletions: Record<string, string> } | null;
    }
  ).report?.deletions ?? {};

describe("through PgBouncer in transaction mode", () => {
  it("serves the life of an organization: engines at once, claims, commands, the console, the partition pass, and a deletion to completion", async () => {
    const label = `pgbouncer-${crypto.randomUUID().slice(0, 8)}`;
    const results = await drivePaths(served!.base, stack, label, () => output);
    expect(failed(results), formatReport("this release through PgBouncer", results)).toEqual([]);
    const [{ id: orgId }] = (await superuser<{ id: string }>("SELECT id FROM organizations WHERE slug = $1", [label])) as [{ id: string }];

    // Six engines at once, each its own environment.
    const tokens = await Promise.all(Array.from({ length: 6 }, () => engineToken(orgId)));
    const answers = await Promise.all(
      tokens.map((token, i) =>
        send(`${served!.base}/v1/events`, {
          token,
          body: JSON.stringify({
            events: Array.from({ length: 20 }, (_, n) => ({
              id: `engine-${i}-${n}`,
              type: "environment.ready",
              envId: `engine-${i}`,
              sequence: n + 1,
              occurredAt: new Date().toISOString(),
              payload: { repository: "pgbouncer/shop", branch: `b${i}` },
            })),
          }),
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(tokens.map(() => 202));
    expect(
      await superuser("SELECT env_id, last_sequence::int AS sequence FROM environments WHERE org_id = $1 AND env_id LIKE 'engine-%' ORDER BY env_id", [orgId]),
    ).toEqual(tokens.map((_, i) => ({ env_id: `engine-${i}`, sequence: 20 })));

    // The partition pass with a retention, as the maintenance login through PgBouncer: an event of three months ago goes.
    const old = new Date(Date.now() - 92 * 86_400_000).toISOString();
    await superuser("INSERT INTO events (org_id, id, occurred_at, type, env_id, payload) VALUES ($1, 'ancient', $2, 'environment.ready', 'engine-0', '{}')", [
      orgId,
      old,
    ]);
    const report = await withNodeDb(through(stack.urls.maintenance, bouncerPort), "svc_maintenance", (db) =>
      runPartitionPass(db, { now: new Date(), retentionMonths: 1, archive: null }),
    );
    expect(report.prunedFromDefault + report.dropped.length).toBeGreaterThan(0);
    expect(await superuser("SELECT id FROM events WHERE org_id = $1 AND id = 'ancient'", [orgId])).toEqual([]);

    // A deletion from its Revoke step to the end, driven by the sweep as the Cron Trigger drives it.
    await superuser("INSERT INTO deletions (org_id, step, export_token_hash) VALUES ($1, 'revoke', $2)", [orgId, crypto.randomUUID()]);
    let outcome = "";
    for (let sweeps = 0; sweeps < 10 && outcome !== "deleted"; sweeps++) outcome = (await sweep())[orgId] ?? outcome;
    expect(outcome, output.slice(-4000)).toBe("deleted");
    const left = await superuser<{ rows: number }>(
      `SELECT (SELECT count(*) FROM tokens WHERE org_id = $1) + (SELECT count(*) FROM environments WHERE org_id = $1)
            + (SELECT count(*) FROM events WHERE org_id = $1) + (SELECT count(*) FROM workload_runs WHERE org_id = $1)
            + (SELECT count(*) FROM memberships WHERE org_id = $1) AS rows`,
      [orgId],
    );
    expect(Number(left[0]!.rows)).toBe(0);
  }, 180_000);

  it("svc config check --database, the pipeline's check before a deploy, passes these logins and refuses one that bypasses row-level security", async () => {
    const env = { ...localWorkerDefaults(stack, "8080", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="), SVC_DATABASE_WS_PROXY: undefined };
    const said: string[] = [];
    vi.spyOn(console, "error").mockImplementation((line: unknown) => void said.push(String(line)));
    vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      expect(await configCheck(["check", "--database"], env)).toBe(0);
      await superuser("CREATE ROLE pgbouncer_bypassing LOGIN BYPASSRLS PASSWORD 'pw' IN ROLE svc_app");
      const bypassing = new URL(stack.urls.app);
      bypassing.username = "pgbouncer_bypassing";
      bypassing.password = "pw";
      expect(await configCheck(["check", "--database"], { ...env, SVC_DATABASE_URL: bypassing.toString() })).toBe(1);
      expect(said.at(-1)).toMatch(/^SVC_DATABASE_URL names a login that bypasses row-level security/);
    } finally {
      vi.restoreAllMocks();
    }
  });
});

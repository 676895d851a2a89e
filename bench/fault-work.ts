// The work of `bench:faults` and the fault suite (test/faults/): engines that send environment events
// through POST /v1/events and retry as docs/engine-events.md tells them to, while the database's
// connections are cut or its processes frozen; then what was stored, what each answer was and how long
// it took. Everything here drives the Worker from the outside, over HTTP, as an engine would.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Agent, request } from "node:http";
import { sql } from "drizzle-orm";
import { type nodePool, withNodeDb } from "../db/node-pool";
import { inTenant, inTransaction } from "../db/transaction";
import { createOrganization } from "../worker/organizations/store";
import { upsertCodehostPerson } from "../worker/people/store";
import { beginSession } from "../worker/sessions/store";
import { issueToken } from "../worker/tokens/issue";
import { percentile } from "./figures";

/** What a client gives up after: an answer later than this counts as none (the targets say 10 s). */
export const CLIENT_DEADLINE_MS = 15_000;

export interface Answer {
  status: number;
  code: string | null;
  ms: number;
  text: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 32 });

/** One request with the client's deadline: status 0 when no answer came in time, -1 when the connection was dropped. */
export function send(url: string, init: { method?: string; token?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { ...init.headers };
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    if (init.body !== undefined) Object.assign(headers, { "content-type": "application/json", "content-length": Buffer.byteLength(init.body) });
    const done = (status: number, text: string, code: string | null = null) => {
      clearTimeout(timer);
      resolve({ status, code, ms: performance.now() - started, text });
    };
    const sent = request(url, { method: init.method ?? (init.body === undefined ? "GET" : "POST"), agent, headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on("data", (chunk: Buffer) => chunks.push(chunk));
      answer.on("end", () => done(answer.statusCode ?? 0, Buffer.concat(chunks).toString("utf8"), (answer.headers["x-svc-error-code"] as string) ?? null));
      answer.on("error", () => done(-1, ""));
    });
    const timer = setTimeout(() => {
      sent.destroy();
      done(0, "");
    }, CLIENT_DEADLINE_MS);
    sent.on("error", () => done(-1, ""));
    sent.end(init.body);
  });
}

export interface Engines {
  token: string;
  orgId: string;
}

/** An organization and an engine token for the engines. */
export async function engineToken(pool: ReturnType<typeof nodePool>, slug: string): Promise<Engines> {
  const org = await createOrganization(pool.connect, { slug, actorLabel: "faults" });
  const { token } = await inTenant(pool.connect, org.id, (tx) => issueToken(tx, { orgId: org.id, kind: "engine", name: "faults" }));
  return { token, orgId: org.id };
}

export interface EngineRun {
  answers: Answer[];
  /** Tries a batch took, per batch. */
  tries: number[];
  sent: number;
  /** The last sequence sent per environment. */
  last: Map<string, number>;
  /** Batches given up after the engine's tries ran out. */
  abandoned: number;
}

/**
 * `engines` engines, each sending `batches` batches of `size` environment events for its own
 * environments, retrying a batch on a 5xx, no answer or a dropped connection with backoff (200 ms
 * doubling to 2 s), as docs/engine-events.md says, until `giveUpAfterMs`.
 */
export async function runEngines(
  base: string,
  token: string,
  options: { engines: number; batches: number; size: number; prefix: string; giveUpAfterMs?: number; pauseMs?: number },
): Promise<EngineRun> {
  const run: EngineRun = { answers: [], tries: [], sent: 0, last: new Map(), abandoned: 0 };
  const giveUp = options.giveUpAfterMs ?? 120_000;
  await Promise.all(
    Array.from({ length: options.engines }, async (_, engine) => {
      let sequence = 0;
      for (let b = 0; b < options.batches; b++) {
        const events = Array.from({ length: options.size }, (_, i) => {
          const envId = `${options.prefix}-${engine}-${i % 4}`;
          sequence += 1;
          run.last.set(envId, sequence);
          return {
            id: `${options.prefix}-${engine}-${b}-${i}`,
            type: i % 2 === 0 ? "environment.ready" : "environment.creating",
            envId,
            sequence,
            occurredAt: new Date().toISOString(),
            payload: { repository: "faults/shop", branch: `b-${engine}` },
          };
        });
        const body = JSON.stringify({ events });
        const started = Date.now();
        let delay = 200;
        for (let tries = 1; ; tries++) {
          const answer = await send(`${base}/v1/events`, { token, body });
          run.answers.push(answer);
          if (answer.status === 202) {
            run.tries.push(tries);
            run.sent += events.length;
            break;
          }
          if (answer.status > 0 && answer.status < 500 && answer.status !== 429) throw new Error(`POST /v1/events answered ${answer.status}: ${answer.text}`);
          if (Date.now() - started > giveUp) {
            run.abandoned += 1;
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, delay));
          delay = Math.min(2_000, delay * 2);
        }
        if (options.pauseMs) await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
      }
    }),
  );
  return run;
}

/** Every `everyMs`, terminates the backends of the application role's logins; returns how many it ended. */
export function connectionStorm(superuserUrl: string, everyMs: number, role = "svc_app"): { stop: () => Promise<number> } {
  let dropped = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await new Promise((resolve) => setTimeout(resolve, everyMs));
      if (stopped) break;
      try {
        const { rows } = await withNodeDb(superuserUrl, null, (db) =>
          db.execute<{ ended: boolean }>(
            sql`SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
               WHERE usename IN (SELECT rolname FROM pg_roles WHERE NOT rolsuper AND pg_has_role(oid, ${role}, 'MEMBER')) AND pid <> pg_backend_pid()`,
          ),
        );
        dropped += rows.filter((row) => row.ended).length;
      } catch {
        // The server is busy or going away: the next round tries again.
      }
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return dropped;
    },
  };
}

/** The server's processes (the postmaster and its children), from its data folder's postmaster.pid. */
function postgresPids(dataDir: string): number[] {
  const postmaster = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  const pids = [postmaster];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === postmaster) pids.push(Number(entry));
    } catch {
      // The process ended while the list was read.
    }
  }
  return pids;
}

/** Stops every process of the server (SIGSTOP): it neither answers nor closes a connection; `resume` continues them. */
export function freeze(dataDir: string): { resume: () => void } {
  const frozen = postgresPids(dataDir);
  for (const pid of frozen) signal(pid, "SIGSTOP");
  return {
    resume: () => {
      for (const pid of new Set([...frozen, ...postgresPids(dataDir)])) signal(pid, "SIGCONT");
    },
  };
}

/** A signal to a process that may have ended since it was listed (an exiting backend). */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as { code?: string }).code !== "ESRCH") throw error;
  }
}

/** Probes `url` every `everyMs` until stopped; answers the probes' times. */
export function probe(url: string, everyMs: number): { stop: () => Promise<Answer[]> } {
  const answers: Answer[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      answers.push(await send(url));
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return answers;
    },
  };
}

export interface Stored {
  /** Events stored, by id prefix. */
  events: number;
  /** Distinct event ids (equal to `events` when nothing doubled). */
  distinct: number;
  /** Environments whose projection is behind the last sequence sent. */
  behind: string[];
}

/** What the database holds of a run: events under `prefix`, and each environment's projected sequence. */
export async function stored(superuserUrl: string, orgId: string, prefix: string, last: Map<string, number>): Promise<Stored> {
  return withNodeDb(superuserUrl, null, async (db) => {
    const counts = await db.execute<{ events: string; distinct: string }>(
      sql`SELECT count(*) AS events, count(DISTINCT id) AS distinct FROM events WHERE org_id = ${orgId} AND id LIKE ${`${prefix}-%`}`,
    );
    const projected = await db.execute<{ env_id: string; last_sequence: string | null }>(
      sql`SELECT env_id, last_sequence FROM environments WHERE org_id = ${orgId} AND env_id LIKE ${`${prefix}-%`}`,
    );
    const seen = new Map(projected.rows.map((row) => [row.env_id, Number(row.last_sequence)]));
    const behind = [...last].filter(([envId, sequence]) => seen.get(envId) !== sequence).map(([envId]) => envId);
    return { events: Number(counts.rows[0]!.events), distinct: Number(counts.rows[0]!.distinct), behind };
  });
}

/** Answers by status (0: none in time, -1: dropped), with the error code of each 5xx. */
export function byStatus(answers: readonly Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status, code } of answers) {
    const key = status >= 500 && code ? `${status} ${code}` : status === 0 ? "no answer" : status === -1 ? "dropped" : String(status);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

export const timings = (answers: readonly Answer[]) => {
  const ms = answers.map((answer) => answer.ms);
  return { p50: percentile(ms, 50), p99: percentile(ms, 99), max: Math.max(0, ...ms) };
};

export interface ClaimRun {
  /** Every answer to a claim or a heartbeat. */
  answers: Answer[];
  /** The engines each run was handed to, by run id. */
  claimedBy: Map<string, number[]>;
  /** Heartbeats answered 409: the engine was told it lost a run it held. */
  lostLeases: number;
}

/**
 * `engines` engines (one engine token each) claim runs of `envId` until `runs` were claimed, and
 * heartbeat each run they hold `beats` times, retrying a claim (with its claimId) or a heartbeat on a
 * 5xx, no answer or a dropped connection, as docs/engine-events.md says.
 */
export async function runClaimers(
  base: string,
  tokens: readonly string[],
  envId: string,
  options: { runs: number; beats: number; giveUpAfterMs?: number; pauseMs?: number },
): Promise<ClaimRun> {
  const run: ClaimRun = { answers: [], claimedBy: new Map(), lostLeases: 0 };
  const until = Date.now() + (options.giveUpAfterMs ?? 120_000);
  const retrying = async (path: string, token: string, json: unknown): Promise<Answer> => {
    let delay = 200;
    for (;;) {
      const answer = await send(base + path, { token, body: JSON.stringify(json) });
      run.answers.push(answer);
      if ((answer.status > 0 && answer.status < 500) || Date.now() > until) return answer;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(2_000, delay * 2);
    }
  };
  await Promise.all(
    tokens.map(async (token, engine) => {
      while (run.claimedBy.size < options.runs && Date.now() < until) {
        // One id per claim, the same on every retry of it: a retry answers the run the first try took.
        const claimed = await retrying("/v1/workloads/claim", token, { envId, claimId: crypto.randomUUID() });
        if (claimed.status !== 200) throw new Error(`a claim answered ${claimed.status}: ${claimed.text}`);
        const held = (JSON.parse(claimed.text) as { run: { id: string; lease: { id: string } } | null }).run;
        if (!held) continue;
        run.claimedBy.set(held.id, [...(run.claimedBy.get(held.id) ?? []), engine]);
        for (let beat = 0; beat < options.beats; beat++) {
          if (options.pauseMs) await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
          const answer = await retrying(`/v1/workloads/runs/${held.id}/heartbeat`, token, { leaseId: held.lease.id });
          if (answer.status === 409) run.lostLeases += 1;
        }
      }
    }),
  );
  return run;
}

export interface Owner {
  orgId: string;
  /** The session cookie's value, and the CSRF header the console sends with it. */
  cookie: string;
  csrf: string;
}

/** An organization with an owner signed in (a person, a membership, a session), as the console holds one. */
export async function signedInOwner(pool: ReturnType<typeof nodePool>, base: string, slug: string): Promise<Owner> {
  const { orgId } = await engineToken(pool, slug);
  const personId = await upsertCodehostPerson(pool.connect, { id: Math.floor(Math.random() * 1e9), login: slug, name: slug, email: null, avatarUrl: null });
  await inTransaction(pool.connect, { orgId }, (tx) =>
    tx.execute(sql`INSERT INTO memberships (org_id, person_id, role, role_source) VALUES (${orgId}, ${personId}, 'owner', 'manual')`),
  );
  const session = await beginSession(pool.connect, { id: personId, label: slug }, { address: null, userAgent: "faults" }, "test");
  const cookie = `svc_session=${session}`;
  const answer = await fetch(`${base}/auth/session`, { headers: { cookie } });
  const { csrfToken } = (await answer.json()) as { csrfToken: string };
  return { orgId, cookie, csrf: csrfToken };
}

/** A console mutation (POST /rpc/<procedure>) as the owner's browser sends it, with the client's deadline. */
export function consoleMutation(base: string, owner: Owner, procedure: string, input: unknown): Promise<Answer> {
  return send(`${base}/rpc/${procedure}`, { body: JSON.stringify(input), headers: { cookie: owner.cookie, "x-svc-csrf": owner.csrf } });
}

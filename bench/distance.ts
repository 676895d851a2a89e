// What the database's distance costs each call: the Worker's deploy bundle (bench/local-worker.ts)
// reaches the bridge through a relay that holds every chunk BENCH_ONE_WAY_MS (default 25) each way,
// as a Worker far from its Neon region does (Frankfurt to Ohio is about 80 ms a round trip). Each call
// is timed BENCH_CALLS times in a row (default 20, after 3 untimed) with the relay passing at once, then
// with the delay; the slope, (median far - median near) / round trip, is the number of database round
// trips the call pays, its connection's set-up included. Prints a table; `--json` prints it as JSON.
// Asserts nothing: the targets (docs/decisions/0001-database-round-trips.md) are read off the figures.
import { sql } from "drizzle-orm";
import { inTenant, inTransaction } from "../db/transaction";
import { startDelayProxy } from "./delay-proxy";
import { post } from "./engine-http";
import { type BenchWorker, withBenchWorker } from "./local-worker";
import { percentile } from "./figures";
import { enqueueCommand } from "../worker/commands/enqueue";
import { createOrganization } from "../worker/organizations/store";
import { upsertCodehostPerson } from "../worker/people/store";
import { beginSession } from "../worker/sessions/store";
import { issueToken } from "../worker/tokens/issue";
import { defineWorkload, requestRun } from "../worker/workloads/requests";

const ONE_WAY_MS = Number(process.env.BENCH_ONE_WAY_MS ?? 25);
const CALLS = Number(process.env.BENCH_CALLS ?? 20);
const WARM = 3;
const JSON_OUTPUT = process.argv.includes("--json");

/** One call: prepare (untimed), then the request, which must answer `status`. */
interface Call {
  name: string;
  /** An engine call, a console procedure or the readiness probe: each kind has its target (the decision record). */
  kind: "engine" | "console" | "probe";
  prepare?: () => Promise<void>;
  send: () => Promise<{ status: number; text: string }>;
  status: number;
}

async function get(url: string, cookie?: string): Promise<{ status: number; text: string }> {
  const response = await fetch(url, cookie ? { headers: { cookie } } : {});
  return { status: response.status, text: await response.text() };
}

const event = (type: string, envId: string, sequence: number, payload: Record<string, unknown>) => ({
  id: crypto.randomUUID(),
  type,
  envId,
  sequence,
  occurredAt: new Date().toISOString(),
  payload,
});

/** An organization with an engine token, a ready environment, a workload, and an owner signed in. */
async function seeded({ pool, base }: BenchWorker) {
  const org = await createOrganization(pool.connect, { slug: `distance-${crypto.randomUUID().slice(0, 8)}`, actorLabel: "bench" });
  const { token } = await inTenant(pool.connect, org.id, (tx) => issueToken(tx, { orgId: org.id, kind: "engine", name: "distance" }));
  const envId = "distance-env";
  const ready = await post(
    `${base}/v1/events`,
    token,
    JSON.stringify({ events: [event("environment.ready", envId, 1, { repository: "bench/shop", branch: "main" })] }),
  );
  if (ready.status !== 202) throw new Error(`reporting the environment: ${ready.status} ${ready.text}`);
  const { versionId } = await inTenant(pool.connect, org.id, (tx) => defineWorkload(tx, org.id, "distance", { steps: ["load"] }));
  const personId = await upsertCodehostPerson(pool.connect, {
    id: 900_000_000 + Math.floor(Math.random() * 1e8),
    login: "distance",
    name: null,
    email: null,
    avatarUrl: null,
  });
  await inTransaction(pool.connect, { orgId: org.id }, (tx) =>
    tx.execute(sql`INSERT INTO memberships (org_id, person_id, role, role_source) VALUES (${org.id}, ${personId}, 'owner', 'manual')`),
  );
  const session = await beginSession(pool.connect, { id: personId, label: "distance" }, { address: null, userAgent: "bench" }, "bench");
  return { orgId: org.id, token, envId, versionId, cookie: `svc_session=${session}` };
}

function calls(worker: BenchWorker, s: Awaited<ReturnType<typeof seeded>>): Call[] {
  const { base, pool } = worker;
  const engine = (path: string, body: unknown) => post(`${base}${path}`, s.token, JSON.stringify(body));
  let sequence = 1;
  let held: { runId: string; leaseId: string } | null = null;
  let command: { id: string; leaseId: string } | null = null;
  const claimRun = async () => {
    await inTenant(pool.connect, s.orgId, (tx) => requestRun(tx, s.orgId, s.envId, s.versionId));
    const claimed = JSON.parse((await engine("/v1/workloads/claim", { envId: s.envId })).text) as { run: { id: string; lease: { id: string } } };
    held = { runId: claimed.run.id, leaseId: claimed.run.lease.id };
  };
  return [
    { name: "GET /readyz", kind: "probe", send: () => get(`${base}/readyz`), status: 200 },
    {
      name: "claim (nothing waits)",
      kind: "engine",
      send: () => engine("/v1/workloads/claim", { envId: s.envId }),
      status: 200,
    },
    {
      name: "claim (a run waits)",
      kind: "engine",
      prepare: () => inTenant(pool.connect, s.orgId, (tx) => requestRun(tx, s.orgId, s.envId, s.versionId)).then(() => {}),
      send: () => engine("/v1/workloads/claim", { envId: s.envId }),
      status: 200,
    },
    {
      name: "heartbeat",
      kind: "engine",
      prepare: async () => {
        if (!held) await claimRun();
      },
      send: () => engine(`/v1/workloads/runs/${held!.runId}/heartbeat`, { leaseId: held!.leaseId }),
      status: 200,
    },
    {
      name: "events: 1, a new environment",
      kind: "engine",
      send: () =>
        engine("/v1/events", { events: [event("environment.creating", `distance-${crypto.randomUUID()}`, 1, { repository: "bench/shop", branch: "main" })] }),
      status: 202,
    },
    {
      name: "events: 1, the environment moves on",
      kind: "engine",
      send: () => engine("/v1/events", { events: [event("environment.ready", s.envId, ++sequence, { repository: "bench/shop", branch: "main" })] }),
      status: 202,
    },
    {
      name: "events: 1, stored only",
      kind: "engine",
      send: () => engine("/v1/events", { events: [event("engine.note", s.envId, ++sequence, {})] }),
      status: 202,
    },
    {
      name: "events: 50 of 5 environments",
      kind: "engine",
      send: () => {
        const batch = Array.from({ length: 50 }, (_, i) => {
          const runId = crypto.randomUUID();
          return event("run.started", `distance-five-${i % 5}`, ++sequence, { runId, kind: "load" });
        });
        return engine("/v1/events", { events: batch });
      },
      status: 202,
    },
    {
      name: "command claim (nothing waits)",
      kind: "engine",
      send: () => engine("/v1/commands/claim", {}),
      status: 200,
    },
    {
      name: "command ack",
      kind: "engine",
      prepare: async () => {
        await inTenant(pool.connect, s.orgId, (tx) => enqueueCommand(tx, s.orgId, { envId: s.envId, kind: "teardown" }));
        const claimed = JSON.parse((await engine("/v1/commands/claim", {})).text) as { commands: Array<{ id: string; lease: { id: string } }> };
        command = { id: claimed.commands[0]!.id, leaseId: claimed.commands[0]!.lease.id };
      },
      send: () => engine(`/v1/commands/${command!.id}/ack`, { leaseId: command!.leaseId, outcome: "done" }),
      status: 200,
    },
    {
      name: "console environments.list",
      kind: "console",
      send: () => get(`${base}/rpc/environments.list?input=${encodeURIComponent(JSON.stringify({ orgId: s.orgId }))}`, s.cookie),
      status: 200,
    },
    {
      name: "console workloads.runs",
      kind: "console",
      send: () => get(`${base}/rpc/workloads.runs?input=${encodeURIComponent(JSON.stringify({ orgId: s.orgId }))}`, s.cookie),
      status: 200,
    },
  ];
}

/** The call's median over CALLS timed sends, after WARM untimed ones. */
async function median(call: Call): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < WARM + CALLS; i++) {
    await call.prepare?.();
    const started = performance.now();
    const answer = await call.send();
    const elapsed = performance.now() - started;
    if (answer.status !== call.status) throw new Error(`${call.name} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
    if (i >= WARM) times.push(elapsed);
  }
  return percentile(times, 50);
}

async function main() {
  const proxy = await startDelayProxy();
  try {
    await withBenchWorker({ SVC_DATABASE_WS_PROXY: proxy.address }, async (worker) => {
      proxy.target = worker.stack.bridge;
      const s = await seeded(worker);
      const rows: Array<{ call: string; kind: Call["kind"]; nearMs: number; farMs: number; roundTrips: number }> = [];
      for (const call of calls(worker, s)) {
        proxy.oneWayMs = 0;
        const nearMs = await median(call);
        proxy.oneWayMs = ONE_WAY_MS;
        const farMs = await median(call);
        rows.push({ call: call.name, kind: call.kind, nearMs, farMs, roundTrips: (farMs - nearMs) / (2 * ONE_WAY_MS) });
      }
      if (JSON_OUTPUT) {
        console.log(JSON.stringify({ oneWayMs: ONE_WAY_MS, calls: CALLS, rows }));
        return;
      }
      console.log(`distance: the database ${2 * ONE_WAY_MS} ms a round trip away; medians of ${CALLS} calls in a row each`);
      console.log(`${"call".padEnd(38)}  ${"kind".padEnd(7)}  ${"near ms".padStart(8)}  ${"far ms".padStart(8)}  round trips`);
      for (const row of rows) {
        console.log(
          `${row.call.padEnd(38)}  ${row.kind.padEnd(7)}  ${row.nearMs.toFixed(1).padStart(8)}  ${row.farMs.toFixed(1).padStart(8)}  ${row.roundTrips.toFixed(1).padStart(11)}`,
        );
      }
    });
  } finally {
    await proxy.close();
  }
}

await main();

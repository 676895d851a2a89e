// Ingestion throughput: 500-event batches through POST /v1/events on the local stack (Worker under
// `wrangler dev`, neon driver, bridge, PostgreSQL) at concurrency 1 and 4, beside a raw multi-row
// INSERT ... ON CONFLICT DO NOTHING of same-shaped rows into the same PostgreSQL from Node.
// Three mixes (see MIXES): events stored and projected nowhere, run.finished events projected onto run
// records in the insert's transaction, and a tenth environment.* events over 20 environments. Each figure is printed beside the cost of
// sending the same batches again (all duplicates, as an engine's retry is).
// Bounded: a fixed number of batches per run. Prints figures; asserts nothing.
// BENCH_INSPECTOR_PORT=9229 prints instead a CPU profile of the Worker over the stored-only batches
// (BENCH_PROFILE_MIX names another mix).
import { Agent, request } from "node:http";
import { type Connection, inTenant } from "../db/transaction";
import { withBenchWorker } from "./local-worker";
import { profiled } from "./profile";
import { createOrganization } from "../worker/organizations/store";
import { issueToken } from "../worker/tokens/issue";

const BATCH = 500;
const BATCHES = Number(process.env.BENCH_BATCHES ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

interface Row {
  id: string;
  type: string;
  envId: string;
  sequence: number;
  occurredAt: string;
  payload: Record<string, unknown>;
}

// "stored only": a type the service stores and projects nothing for (as run.finished was when issue 19
// measured "today's mix"); "run.finished": each one also projected onto a run record in the insert's
// transaction; "10% environment.*": the stored-only mix with every tenth event an environment.ready
// over 20 environments, so the environment objects' projection is on the path.
type Mix = "stored only" | "run.finished" | "10% environment.*";
const MIXES: Mix[] = ["stored only", "run.finished", "10% environment.*"];
let environmentSequence = 0;

function event(mix: Mix, i: number, now: number): Row {
  const common = { id: crypto.randomUUID(), envId: `env-${i % 20}`, sequence: i, occurredAt: new Date(now - i).toISOString() };
  if (mix === "10% environment.*" && i % 10 === 0) {
    // A valid environment.ready: the environment object projects it.
    return { ...common, type: "environment.ready", sequence: ++environmentSequence, payload: { repository: "bench/shop", branch: `branch-${i % 20}` } };
  }
  if (mix === "run.finished") {
    // A valid run.finished (worker/records/payloads.ts): each one projects onto a run record too.
    return { ...common, type: "run.finished", payload: { runId: `run-${crypto.randomUUID()}`, outcome: "passed", durationMs: 1234 } };
  }
  return { ...common, type: "engine.progress", payload: { run: i, step: "load", durationMs: 1234 } };
}

function batch(mix: Mix): Row[] {
  const now = Date.now();
  return Array.from({ length: BATCH }, (_, i) => event(mix, i, now));
}

/** Sends `work` with `concurrency` workers; returns events per second. */
async function measure(concurrency: number, work: Row[][], send: (rows: Row[]) => Promise<void>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < work.length) await send(work[next++]!);
    }),
  );
  return (work.length * BATCH) / ((performance.now() - started) / 1000);
}

// The engines' side as lean as the raw insert's: node:http on kept-alive connections (fetch's client
// costs this machine's shared cores more per request than the Worker's own parsing of the batch).
const agent = new Agent({ keepAlive: true, maxSockets: 8 });
function post(url: string, token: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(
      url,
      { method: "POST", agent, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => chunks.push(chunk));
        answer.on("end", () => resolve({ status: answer.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        answer.on("error", reject);
      },
    );
    sent.on("error", reject);
    sent.end(body);
  });
}

async function main() {
  await withBenchWorker({}, async ({ pool, base, sourceMap }) => {
    const service = await createOrganization(pool.connect, { slug: "bench-service", actorLabel: "bench" });
    const raw = await createOrganization(pool.connect, { slug: "bench-raw", actorLabel: "bench" });
    const { token, id: tokenId } = await inTenant(pool.connect, service.id, (tx) => issueToken(tx, { orgId: service.id, kind: "engine", name: "bench" }));

    const viaService = async (rows: Row[]) => {
      const { status, text } = await post(`${base}/v1/events`, token, JSON.stringify({ events: rows }));
      if (status !== 202) throw new Error(`POST /v1/events answered ${status}: ${text}`);
      const body = JSON.parse(text) as { accepted: number; duplicates: number; rejected: number };
      if (body.rejected) throw new Error(`POST /v1/events rejected ${body.rejected} events`);
      return body;
    };
    const firstSending = async (rows: Row[]) => {
      await viaService(rows);
    };
    // The same batch again: every event a duplicate.
    const retry = async (rows: Row[]) => {
      const body = await viaService(rows);
      if (body.duplicates !== rows.length) throw new Error(`a retry found ${body.duplicates} of ${rows.length} events already stored`);
    };
    // The same rows' shape, one multi-row statement per batch, as the application role in a tenant transaction.
    const viaRawInsert = async (rows: Row[]) => {
      const params: unknown[] = [raw.id, tokenId];
      const values = rows.map((row) => {
        params.push(row.id, row.occurredAt, row.type, row.envId, row.sequence, JSON.stringify(row.payload));
        const n = params.length;
        return `($1, $${n - 5}, $${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}, $${n}, $2)`;
      });
      // The baseline is the driver's own multi-row insert, with no query builder in front of it: the
      // connection's raw client, inside the same tenant transaction the service's insert runs in.
      let connection: Connection | null = null;
      const connect = async () => (connection = await pool.connect());
      await inTenant(connect, raw.id, () =>
        connection!.raw.query(
          `INSERT INTO events (org_id, id, occurred_at, type, env_id, sequence, payload, token_id) VALUES ${values.join(", ")} ON CONFLICT DO NOTHING`,
          params,
        ),
      );
    };

    await viaService(batch("run.finished")); // warm the isolate, the Durable Object and the pools
    await viaRawInsert(batch("run.finished"));
    if (process.env.BENCH_INSPECTOR_PORT) {
      // Where the Worker's time goes: a CPU profile of one run's batches of one mix at concurrency 1.
      const mix = (process.env.BENCH_PROFILE_MIX ?? "stored only") as Mix;
      if (!MIXES.includes(mix)) throw new Error(`BENCH_PROFILE_MIX is one of: ${MIXES.join(", ")}`);
      const work = Array.from({ length: BATCHES }, () => batch(mix));
      console.log(await profiled(Number(process.env.BENCH_INSPECTOR_PORT), sourceMap, () => measure(1, work, firstSending).then(() => {})));
      return;
    }
    console.log(`ingest: ${BATCHES} batches of ${BATCH} events per run, ${ROUNDS} rounds each, medians`);
    console.log("mix                concurrency  service ev/s  retry ev/s  raw insert ev/s  ratio");
    for (const mix of MIXES) {
      for (const concurrency of [1, 4]) {
        // Rounds alternate the service and the raw insert, so a drift of the machine (another process,
        // the table growing) weighs on both alike; each column is the median of its rounds.
        const rounds: Array<{ service: number; again: number; direct: number }> = [];
        for (let round = 0; round < ROUNDS; round++) {
          const work = Array.from({ length: BATCHES }, () => batch(mix));
          const service = await measure(concurrency, work, firstSending);
          const again = await measure(concurrency, work, retry);
          const direct = await measure(
            concurrency,
            Array.from({ length: BATCHES }, () => batch(mix)),
            viaRawInsert,
          );
          rounds.push({ service, again, direct });
        }
        const service = median(rounds.map((r) => r.service));
        const direct = median(rounds.map((r) => r.direct));
        console.log(
          `${mix.padEnd(17)}  ${String(concurrency).padStart(11)}  ${service.toFixed(0).padStart(12)}  ${median(rounds.map((r) => r.again))
            .toFixed(0)
            .padStart(10)}  ${direct.toFixed(0).padStart(15)}  ${(service / direct).toFixed(2).padStart(5)}`,
        );
      }
    }
  });
}

await main();

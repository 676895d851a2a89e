// The model proxy's added latency: the same chat-completions requests (plain and streamed) sent to
// the fake provider directly and through `POST /byok/chat-provider/v1/chat/completions` on the local
// stack (the Worker's deploy bundle in workerd, `bench/local-worker.ts`: neon driver, bridge, PostgreSQL), one at a time. Prints the
// median and 90th percentile of time to first byte and total time, and what the proxy adds.
// Bounded: BENCH_REQUESTS requests per mode (default 60). Asserts nothing.
import { sql } from "drizzle-orm";
import { inTenant } from "../db/transaction";
import { withBenchWorker } from "./local-worker";
import { startFakeModelProvider } from "../fakes/model-providers/server";
import { createOrganization } from "../worker/organizations/store";
import { seal } from "../worker/providers/sealing";
import { issueToken } from "../worker/tokens/issue";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 60);
const PROVIDER_KEY = "sk-bench-provider-key";

interface Timing {
  firstByte: number;
  total: number;
}

/** One request, timed to its first body byte and to its last. */
async function timed(url: string, token: string, stream: boolean): Promise<Timing> {
  const started = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-4o-mini", max_tokens: 64, stream, messages: [{ role: "user", content: "Say something short." }] }),
  });
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
  const reader = response.body!.getReader();
  let firstByte = 0;
  for (;;) {
    const { done } = await reader.read();
    if (firstByte === 0) firstByte = performance.now() - started;
    if (done) break;
  }
  return { firstByte, total: performance.now() - started };
}

const percentile = (values: number[], p: number) => values.toSorted((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

async function series(url: string, token: string, stream: boolean): Promise<Timing[]> {
  const timings: Timing[] = [];
  for (let i = 0; i < REQUESTS; i++) timings.push(await timed(url, token, stream));
  return timings;
}

async function main() {
  const provider = await startFakeModelProvider("chat");
  const sealingKey = crypto.getRandomValues(new Uint8Array(32));
  const variables = { SVC_CHAT_PROVIDER_API_BASE: provider.url, SVC_PROVIDER_KEY_SECRET: btoa(String.fromCharCode(...sealingKey)) };
  await withBenchWorker(variables, async ({ pool, base }) => {
    const org = await createOrganization(pool.connect, { slug: "bench-proxy", actorLabel: "bench" });
    const { token } = await inTenant(pool.connect, org.id, async (tx) => {
      // The key sealed as the Worker seals it, and a budget no run of this benchmark reaches.
      const keyId = crypto.randomUUID();
      const sealed = await seal(
        { keys: new Map([["v1", sealingKey]]), sealingVersion: "v1" },
        { keyId, orgId: org.id, provider: "chat-provider" },
        PROVIDER_KEY,
      );
      await tx.execute(
        sql`INSERT INTO provider_keys (id, org_id, provider, key_version, nonce, ciphertext, last_four)
            VALUES (${keyId}, ${org.id}, 'chat-provider', ${sealed.version}, ${sealed.nonce}, ${sealed.ciphertext}, ${PROVIDER_KEY.slice(-4)})`,
      );
      await tx.execute(sql`INSERT INTO provider_budgets (org_id, provider, monthly_cap_micros) VALUES (${org.id}, 'chat-provider', 1000000000)`);
      return issueToken(tx, { orgId: org.id, kind: "engine", name: "bench" });
    });
    const direct = `${provider.url}/v1/chat/completions`;
    const proxied = `${base}/byok/chat-provider/v1/chat/completions`;
    await timed(proxied, token, true); // warm the isolate and its pools
    console.log(`model proxy: ${REQUESTS} chat-completions requests per mode, one at a time (ms)`);
    console.log("mode      path    ttfb p50  ttfb p90  total p50  total p90");
    for (const stream of [false, true]) {
      const rows: Array<[string, Timing[]]> = [
        ["direct", await series(direct, PROVIDER_KEY, stream)],
        ["proxy", await series(proxied, token, stream)],
      ];
      for (const [path, timings] of rows) {
        const first = timings.map((t) => t.firstByte);
        const total = timings.map((t) => t.total);
        console.log(
          `${(stream ? "streamed" : "plain").padEnd(8)}  ${path.padEnd(6)}  ${[percentile(first, 0.5), percentile(first, 0.9), percentile(total, 0.5), percentile(total, 0.9)].map((v) => v.toFixed(1).padStart(8)).join("  ")}`,
        );
      }
      const added = (pick: (t: Timing) => number) => percentile(rows[1]![1].map(pick), 0.5) - percentile(rows[0]![1].map(pick), 0.5);
      console.log(
        `${(stream ? "streamed" : "plain").padEnd(8)}  added   ${added((t) => t.firstByte)
          .toFixed(1)
          .padStart(8)}            ${added((t) => t.total)
          .toFixed(1)
          .padStart(9)}`,
      );
    }
  }).finally(() => provider.close());
}

await main();

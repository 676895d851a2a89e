// What every benchmark runs against: embedded PostgreSQL and the bridge in a temporary directory
// (event partitions made), the Worker under `wrangler dev` on a free port with the local defaults plus
// `variables` (ingestion's rate limit off), and a pool as the application role. Everything is torn
// down when `run` ends, however it ends.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { nodePool, withNodeClient } from "../db/cli/node-pool";
import { writeEnvFile } from "../local/env-file";
import { localWorkerDefaults, startLocalStack, type LocalStack } from "../local/stack";
import { startWrangler, workerAnswers } from "../local/wrangler";
import { freePort } from "../test/setup/free-port";
import { runPartitionPass } from "../worker/events/partitions/pass";

export interface BenchWorker {
  stack: LocalStack;
  port: string;
  /** The Worker's origin, `http://127.0.0.1:<port>`. */
  base: string;
  pool: ReturnType<typeof nodePool>;
}

export async function withBenchWorker<T>(variables: Record<string, string>, run: (worker: BenchWorker) => Promise<T>): Promise<T> {
  const dataDir = join(mkdtempSync(join(tmpdir(), "svc-bench-")), "data");
  const stack = await startLocalStack({ dataDir, postgresPort: await freePort(), bridgePort: 0, persistent: false });
  const port = String(await freePort());
  const envFile = join(dirname(dataDir), "worker.env");
  writeEnvFile(envFile, {
    ...localWorkerDefaults(stack, port, btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))),
    SVC_INGEST_RATE_LIMIT: "off",
    ...variables,
  });
  await withNodeClient(stack.urls.maintenance, (client) => runPartitionPass(client, { now: new Date(), retentionMonths: null, archive: null }));
  const wrangler = startWrangler({ port, envFile, persistTo: join(dirname(dataDir), "wrangler"), output: "ignore" });
  const pool = nodePool(stack.urls.app);
  try {
    if (!(await workerAnswers(port))) throw new Error("the Worker did not start");
    return await run({ stack, port, base: `http://127.0.0.1:${port}`, pool });
  } finally {
    await pool.end();
    wrangler.kill("SIGTERM");
    await stack.stop();
    rmSync(dirname(dataDir), { recursive: true, force: true });
  }
}

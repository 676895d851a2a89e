// Ingestion throughput: 500-event batches through POST /v1/events on the local stack (the Worker's
// deploy bundle in workerd, neon driver, bridge, PostgreSQL) at concurrency 1 and 4, beside a raw
// multi-row INSERT ... ON CONFLICT DO NOTHING of same-shaped rows into the same PostgreSQL from Node.
// Three mixes (bench/ingest-work.ts): events stored and projected nowhere, run.finished events
// projected onto run records in the insert's transaction, and a tenth environment.* events over 20
// environments. Each figure is printed beside the cost of sending the same batches again (all
// duplicates, as an engine's retry is), and beside the floor of the same rows: the raw insert and the
// one minimal statement for the records the mix's events write (run records, environment rows).
// Bounded: a fixed number of batches per run. Prints figures; asserts nothing.
// BENCH_INSPECTOR_PORT=9229 prints instead a CPU profile of the Worker over the stored-only batches
// (BENCH_PROFILE_MIX names another mix).
import { batch, BATCH, ingestRounds, ingestSenders, measure, type Mix, MIXES } from "./ingest-work";
import { withBenchWorker } from "./local-worker";
import { profiled } from "./profile";

const BATCHES = Number(process.env.BENCH_BATCHES ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

async function main() {
  await withBenchWorker({}, async (worker) => {
    const senders = await ingestSenders(worker);
    if (process.env.BENCH_INSPECTOR_PORT) {
      // Where the Worker's time goes: a CPU profile of one run's batches of one mix at concurrency 1.
      const mix = (process.env.BENCH_PROFILE_MIX ?? "stored only") as Mix;
      if (!MIXES.includes(mix)) throw new Error(`BENCH_PROFILE_MIX is one of: ${MIXES.join(", ")}`);
      const work = Array.from({ length: BATCHES }, () => batch(mix));
      console.log(await profiled(Number(process.env.BENCH_INSPECTOR_PORT), worker.sourceMap, () => measure(1, work, senders.firstSending).then(() => {})));
      return;
    }
    console.log(`ingest: ${BATCHES} batches of ${BATCH} events per run, ${ROUNDS} rounds each, medians`);
    console.log("mix                concurrency  service ev/s  retry ev/s  raw insert ev/s  ratio  floor ev/s  ratio");
    for (const mix of MIXES) {
      for (const concurrency of [1, 4]) {
        const { service, again, direct, floor } = await ingestRounds(senders, mix, concurrency, ROUNDS, BATCHES);
        const figure = (value: number, width: number) => value.toFixed(0).padStart(width);
        const ratio = (of: number) => (service / of).toFixed(2).padStart(5);
        console.log(
          `${mix.padEnd(17)}  ${String(concurrency).padStart(11)}  ${figure(service, 12)}  ${figure(again, 10)}  ${figure(direct, 15)}  ${ratio(direct)}  ${figure(floor, 10)}  ${ratio(floor)}`,
        );
      }
    }
  });
}

await main();

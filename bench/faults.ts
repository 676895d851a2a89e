// A bad day for the database, from the engines' side: engines send environment events through
// POST /v1/events while every application connection is terminated every two seconds, then while the
// database is frozen (its processes stopped) and resumed. Prints batches, connections dropped,
// answers by status, answer times, events stored against sent, environments behind, /health's times
// and the first answer after the database returns. Bounded; asserts nothing (test/faults/ does).
import { byStatus, connectionStorm, engineToken, freeze, probe, runEngines, send, stored, timings } from "./fault-work";
import { withBenchWorker } from "./local-worker";

const ENGINES = Number(process.env.BENCH_ENGINES ?? 6);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 20);
const SIZE = 20;
const PAUSE_MS = Number(process.env.BENCH_PAUSE_MS ?? 250);
const DROP_EVERY_MS = Number(process.env.BENCH_DROP_EVERY_MS ?? 2_000);
const FROZEN_MS = Number(process.env.BENCH_FROZEN_MS ?? 15_000);

const fmt = (n: number) => n.toFixed(0);

await withBenchWorker({}, async (worker) => {
  const { token, orgId } = await engineToken(worker.pool, "faults");
  const health = probe(`${worker.base}/health`, 250);

  // The storm: connections cut every two seconds while the engines send.
  const storm = connectionStorm(worker.stack.superuserUrl, DROP_EVERY_MS);
  const started = performance.now();
  const run = await runEngines(worker.base, token, { engines: ENGINES, batches: BATCHES, size: SIZE, prefix: "storm", pauseMs: PAUSE_MS });
  const seconds = (performance.now() - started) / 1000;
  const dropped = await storm.stop();
  const after = await stored(worker.stack.superuserUrl, orgId, "storm", run.last);
  const t = timings(run.answers);
  console.log(`connections dropped every ${DROP_EVERY_MS} ms: ${ENGINES} engines x ${BATCHES} batches of ${SIZE} events, ${seconds.toFixed(1)} s`);
  console.log(`  batches               ${run.tries.length + run.abandoned}`);
  console.log(`  connections dropped   ${dropped}`);
  console.log(`  answers               ${run.answers.length}  ${JSON.stringify(byStatus(run.answers))}`);
  console.log(`  answer ms             p50 ${fmt(t.p50)}  p99 ${fmt(t.p99)}  max ${fmt(t.max)}`);
  console.log(`  tries per batch       max ${Math.max(...run.tries)}  abandoned ${run.abandoned}`);
  console.log(`  events                sent ${run.sent}  stored ${after.events}  distinct ${after.distinct}`);
  console.log(`  environments behind   ${after.behind.length} of ${run.last.size}`);

  // Frozen: the server's processes stopped, then continued.
  const frozen = freeze(worker.stack.dataDir);
  const resumeAt = Date.now() + FROZEN_MS;
  const whileFrozen = runEngines(worker.base, token, { engines: 2, batches: 3, size: SIZE, prefix: "frozen", giveUpAfterMs: 60_000 });
  const readyz: Array<Awaited<ReturnType<typeof send>>> = [];
  while (Date.now() < resumeAt - 5_000) readyz.push(await send(`${worker.base}/readyz`));
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, resumeAt - Date.now())));
  frozen.resume();
  const first = await send(`${worker.base}/v1/events`, {
    token,
    body: JSON.stringify({
      events: [{ id: `resume-${Date.now()}`, type: "engine.progress", envId: "resume", occurredAt: new Date().toISOString(), payload: {} }],
    }),
  });
  const frozenRun = await whileFrozen;
  const frozenAfter = await stored(worker.stack.superuserUrl, orgId, "frozen", frozenRun.last);
  const f = timings(frozenRun.answers);
  console.log(`database frozen for ${FROZEN_MS / 1000} s, then resumed`);
  console.log(
    `  batches               ${frozenRun.tries.length + frozenRun.abandoned}  tries per batch max ${Math.max(...frozenRun.tries)}  abandoned ${frozenRun.abandoned}`,
  );
  console.log(`  answers               ${frozenRun.answers.length}  ${JSON.stringify(byStatus(frozenRun.answers))}`);
  console.log(`  answer ms             p50 ${fmt(f.p50)}  p99 ${fmt(f.p99)}  max ${fmt(f.max)}`);
  console.log(`  /readyz while frozen  ${JSON.stringify(byStatus(readyz))}  max ${fmt(timings(readyz).max)} ms`);
  console.log(`  first after resume    ${first.status} in ${fmt(first.ms)} ms`);
  console.log(
    `  events                sent ${frozenRun.sent}  stored ${frozenAfter.events}  distinct ${frozenAfter.distinct}  behind ${frozenAfter.behind.length}`,
  );
  const h = timings(await health.stop());
  console.log(`/health throughout      p50 ${fmt(h.p50)}  p99 ${fmt(h.p99)}  max ${fmt(h.max)} ms`);
});

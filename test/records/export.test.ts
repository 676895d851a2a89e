// The data export document carries the engine records the spec names: runs, verdicts and runtimes,
// by name (the engine's run id, the runtime's name), never an internal id, nothing of another organization.
import { expect, it } from "vitest";
import { exportOf } from "../support/exports";
import { newEnvId, workplace } from "../support/engine-work";
import { isoAgo, makeEvent, postEvents } from "../support/events";
import { rpcClient } from "../support/rpc";

it("exports runs, verdicts and runtimes by name", async () => {
  const place = await workplace("export-records");
  const other = await workplace("export-records-other");
  const envId = newEnvId();
  const start = makeEvent({
    type: "run.started",
    envId,
    occurredAt: isoAgo(9000),
    payload: { runId: "nightly-42", name: "nightly", runtime: "linux-large", workloadRunId: crypto.randomUUID() },
  });
  await (
    await postEvents(place.engine, [
      start,
      makeEvent({ type: "run.finished", envId, occurredAt: isoAgo(4000), payload: { runId: "nightly-42", outcome: "passed" } }),
      makeEvent({ type: "verdict.recorded", envId, payload: { runId: "nightly-42", name: "checkout", verdict: "pass" } }),
    ])
  ).json();
  await (await postEvents(other.engine, [makeEvent({ type: "run.started", envId, payload: { runId: "someone-elses" } })])).json();
  const admin = await rpcClient(place.sessions.admin);
  const runtime = await admin.runtimes.register.mutate({ orgId: place.orgId, name: "linux-large", labels: ["gpu"] });
  await admin.runtimes.remove.mutate({ orgId: place.orgId, runtimeId: runtime.id });
  await admin.runtimes.register.mutate({ orgId: place.orgId, name: "linux-large" });

  const document = await exportOf(place.orgId);
  expect(document.runs).toEqual([
    {
      runId: "nightly-42",
      envId,
      name: "nightly",
      runtime: "linux-large",
      startedAt: start.occurredAt,
      finishedAt: expect.any(String),
      outcome: "passed",
      durationMs: null,
    },
  ]);
  expect(document.verdicts).toEqual([{ runId: "nightly-42", name: "checkout", verdict: "pass", detail: null, recordedAt: expect.any(String) }]);
  expect(document.runtimes.map((r) => [r.name, r.labels, r.removedAt === null])).toEqual(
    expect.arrayContaining([
      ["linux-large", ["gpu"], false],
      ["linux-large", [], true],
    ]),
  );
  expect(document.runtimes).toHaveLength(2);
  const { auditLog: _audit, ...named } = document;
  expect(JSON.stringify(named)).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
  expect(JSON.stringify(document)).not.toContain("someone-elses");
});

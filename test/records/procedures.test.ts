// The console's view of engine records (runs.list, runs.get, decisions.list): paging, filters, and
// tenant isolation (runtimes' own: test/runtimes/).
import { beforeEach, describe, expect, it } from "vitest";
import { newEnvId, workplace, type Workplace } from "../support/engine-work";
import { isoAgo, makeEvent, sendAccepted } from "../support/events";
import { expectRefusal } from "../support/refusals";
import { rpcClient } from "../support/rpc";

let place: Workplace;
let envId: string;
let viewer: Awaited<ReturnType<typeof rpcClient>>;
let admin: Awaited<ReturnType<typeof rpcClient>>;

beforeEach(async () => {
  place = await workplace("recs");
  envId = newEnvId();
  viewer = await rpcClient(place.sessions.viewer);
  admin = await rpcClient(place.sessions.admin);
});

const send = sendAccepted;

describe("runs.list and runs.get", () => {
  it("pages an environment's runs newest first, and shows one run with its verdicts, artifacts and goldens", async () => {
    for (let i = 1; i <= 5; i++) {
      await send(place.engine, [
        makeEvent({ type: "run.started", envId, occurredAt: isoAgo(60_000 - i), payload: { runId: `${envId}-r${i}`, name: `suite ${i}` } }),
      ]);
    }
    await send(place.engine, [
      makeEvent({ type: "run.finished", envId, occurredAt: isoAgo(1000), payload: { runId: `${envId}-r5`, outcome: "failed" } }),
      makeEvent({ type: "verdict.recorded", envId, payload: { runId: `${envId}-r5`, name: "login", verdict: "fail", detail: "500 on /login" } }),
      makeEvent({ type: "verdict.recorded", envId, payload: { runId: `${envId}-r5`, name: "search", verdict: "pass" } }),
      makeEvent({
        type: "artifact.stored",
        envId,
        payload: { runId: `${envId}-r5`, name: "trace.zip", sizeBytes: 4096, digest: "sha256:abcd", location: "s3://acme/trace.zip" },
      }),
      makeEvent({ type: "golden.published", envId, payload: { runId: `${envId}-r5`, name: "home", version: "7", digest: "sha256:ef01" } }),
      makeEvent({ type: "run.started", envId: "elsewhere", payload: { runId: "not-this-env" } }),
    ]);
    const first = await viewer.runs.list.query({ orgId: place.orgId, envId, limit: 2 });
    expect(first.items.map((run) => run.runId)).toEqual([`${envId}-r5`, `${envId}-r4`]);
    expect(first.items[0]).toMatchObject({
      state: "finished",
      outcome: "failed",
      verdicts: { pass: 1, fail: 1, warn: 0, skip: 0 },
      durationMs: expect.any(Number),
    });
    // Narrowed: the runs still running, or those of one outcome.
    const shown = async (show: "running" | "failed" | "passed") =>
      (await viewer.runs.list.query({ orgId: place.orgId, envId, show })).items.map((run) => run.runId);
    expect(await shown("failed")).toEqual([`${envId}-r5`]);
    expect(await shown("running")).toEqual([`${envId}-r4`, `${envId}-r3`, `${envId}-r2`, `${envId}-r1`]);
    expect(await shown("passed")).toEqual([]);
    const second = await viewer.runs.list.query({ orgId: place.orgId, envId, limit: 2, cursor: first.nextCursor! });
    const third = await viewer.runs.list.query({ orgId: place.orgId, envId, limit: 2, cursor: second.nextCursor! });
    expect([...second.items, ...third.items].map((run) => run.runId)).toEqual([`${envId}-r3`, `${envId}-r2`, `${envId}-r1`]);
    expect(third.nextCursor).toBeNull();

    const run = await viewer.runs.get.query({ orgId: place.orgId, runId: `${envId}-r5` });
    expect(run).toMatchObject({
      name: "suite 5",
      verdictList: [
        { name: "login", verdict: "fail", detail: "500 on /login" },
        { name: "search", verdict: "pass", detail: null },
      ],
      artifacts: [{ name: "trace.zip", sizeBytes: 4096, digest: "sha256:abcd", location: "s3://acme/trace.zip", contentType: null }],
      goldens: [{ name: "home", version: "7", digest: "sha256:ef01" }],
    });
    await expectRefusal(() => viewer.runs.get.query({ orgId: place.orgId, runId: "missing" }), { status: 404, code: "not_found" });
  });

  it("names what the run was refused on the network, by host and port, most requests first, and nothing of another run", async () => {
    const runId = `${envId}-pay`;
    const decision = (host: string, port: number, verdict: "allowed" | "denied", run = runId) =>
      makeEvent({ type: "network.decision", envId, payload: { runId: run, host, port, decision: verdict } });
    await send(place.engine, [
      makeEvent({ type: "run.started", envId, payload: { runId } }),
      decision("api.payments.example", 443, "denied"),
      decision("api.payments.example", 443, "denied"),
      decision("mail.example", 587, "denied"),
      decision("db.internal", 5432, "allowed"),
      decision("other.example", 443, "denied", `${envId}-other`),
    ]);
    const run = await viewer.runs.get.query({ orgId: place.orgId, runId });
    expect(run.deniedConnections).toEqual([
      { host: "api.payments.example", port: 443, requests: 2 },
      { host: "mail.example", port: 587, requests: 1 },
    ]);
  });
});

describe("checks.history", () => {
  it("lists each check that failed lately with the environments it failed and passed on, and nothing to another organization", async () => {
    const [mine, theirs, healthy] = [newEnvId(), newEnvId(), newEnvId()];
    const verdicts = (env: string, run: string, results: Array<[string, "pass" | "fail"]>, minutesAgo = 1) => [
      makeEvent({ type: "run.started", envId: env, occurredAt: isoAgo(minutesAgo * 60_000 + 1000), payload: { runId: run } }),
      ...results.map(([name, verdict]) =>
        makeEvent({ type: "verdict.recorded", envId: env, occurredAt: isoAgo(minutesAgo * 60_000), payload: { runId: run, name, verdict } }),
      ),
    ];
    await send(place.engine, [
      ...verdicts(
        mine,
        `${mine}-1`,
        [
          ["sends the confirmation mail", "fail"],
          ["login", "pass"],
        ],
        30,
      ),
      ...verdicts(mine, `${mine}-2`, [["sends the confirmation mail", "fail"]], 20),
      ...verdicts(theirs, `${theirs}-1`, [["sends the confirmation mail", "fail"]], 10),
      ...verdicts(
        healthy,
        `${healthy}-1`,
        [
          ["sends the confirmation mail", "pass"],
          ["pays with a card", "fail"],
        ],
        40,
      ),
      // Older than the window asked for: left out of a one-day history.
      ...verdicts(healthy, `${healthy}-old`, [["searches", "fail"]], 60 * 24 * 3),
    ]);
    const { days, checks } = await viewer.checks.history.query({ orgId: place.orgId, days: 1 });
    expect(days).toBe(1);
    expect(checks.map((check) => check.name)).toEqual(["sends the confirmation mail", "pays with a card"]);
    expect(checks[0]!.environments.map(({ envId, failures, passes }) => ({ envId, failures, passes }))).toEqual([
      { envId: mine, failures: 2, passes: 0 },
      { envId: theirs, failures: 1, passes: 0 },
      { envId: healthy, failures: 0, passes: 1 },
    ]);
    expect((await viewer.checks.history.query({ orgId: place.orgId })).checks.map((check) => check.name)).toContain("searches");
    await expectRefusal(() => viewer.checks.history.query({ orgId: place.orgId, days: 31 }), { status: 400, code: "invalid_request" });
    const stranger = await rpcClient((await workplace("recs-checks-other")).sessions.owner);
    await expectRefusal(() => stranger.checks.history.query({ orgId: place.orgId }), { status: 404, code: "not_found" });
  });
});

describe("decisions.list", () => {
  it("lists an environment's egress decisions newest first, filtered by allowed or denied", async () => {
    await send(place.engine, [
      makeEvent({ type: "network.decision", envId, occurredAt: isoAgo(3000), payload: { host: "a.example", port: 443, decision: "allowed", rule: "allow-a" } }),
      makeEvent({ type: "network.decision", envId, occurredAt: isoAgo(2000), payload: { host: "b.example", port: 80, decision: "denied" } }),
      makeEvent({ type: "network.decision", envId: "other-env", payload: { host: "c.example", port: 80, decision: "denied" } }),
    ]);
    const all = await viewer.decisions.list.query({ orgId: place.orgId, envId });
    expect(all.items.map((d) => [d.host, d.port, d.decision, d.rule])).toEqual([
      ["b.example", 80, "denied", null],
      ["a.example", 443, "allowed", "allow-a"],
    ]);
    expect((await viewer.decisions.list.query({ orgId: place.orgId, envId, decision: "denied" })).items.map((d) => d.host)).toEqual(["b.example"]);
    expect((await viewer.decisions.list.query({ orgId: place.orgId, envId, decision: "allowed", limit: 1 })).items.map((d) => d.host)).toEqual(["a.example"]);
  });
});

describe("tenant isolation", () => {
  it("another organization sees none of the records or runtimes", async () => {
    await send(place.engine, [
      makeEvent({ type: "run.started", envId, payload: { runId: "secret-run" } }),
      makeEvent({ type: "network.decision", envId, payload: { host: "secret.example", port: 443, decision: "denied" } }),
    ]);
    await admin.runtimes.register.mutate({ orgId: place.orgId, name: "secret-runtime" });
    const other = await workplace("recs-other");
    const stranger = await rpcClient(other.sessions.owner);
    expect((await stranger.runs.list.query({ orgId: other.orgId, envId })).items).toEqual([]);
    await expectRefusal(() => stranger.runs.get.query({ orgId: other.orgId, runId: "secret-run" }), { status: 404, code: "not_found" });
    expect((await stranger.decisions.list.query({ orgId: other.orgId, envId })).items).toEqual([]);
    expect(await stranger.runtimes.list.query({ orgId: other.orgId, includeRemoved: true })).toEqual([]);
    // Naming the other organization is answered like a missing one.
    await expectRefusal(() => stranger.runs.list.query({ orgId: place.orgId, envId }), { status: 404, code: "not_found" });
  });
});

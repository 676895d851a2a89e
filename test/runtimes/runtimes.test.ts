// Runtimes (runtimes.*): registered, labelled, seen by engine events, removed; what a removed
// runtime leaves behind, and who may manage them.
import { beforeEach, describe, expect, it } from "vitest";
import { auditEntries, newEnvId, workplace, type Workplace } from "../support/engine-work";
import { isoAgo, makeEvent, sendAccepted } from "../support/events";
import { expectRefusal } from "../support/refusals";
import { rpcClient } from "../support/rpc";

let place: Workplace;
let envId: string;
let viewer: Awaited<ReturnType<typeof rpcClient>>;
let admin: Awaited<ReturnType<typeof rpcClient>>;

beforeEach(async () => {
  place = await workplace("runtimes");
  envId = newEnvId();
  viewer = await rpcClient(place.sessions.viewer);
  admin = await rpcClient(place.sessions.admin);
});

const send = sendAccepted;

describe("runtimes", () => {
  it("registers, tags, untags and removes; last seen comes from engine events; a removed runtime's runs stay readable", async () => {
    const runtime = await admin.runtimes.register.mutate({ orgId: place.orgId, name: "linux-large", labels: ["region=eu", "gpu", "gpu"] });
    expect(runtime).toMatchObject({ name: "linux-large", labels: ["gpu", "region=eu"], lastSeenAt: null, runs: 0 });
    const listed = () => admin.runtimes.list.query({ orgId: place.orgId, includeRemoved: true });
    await expectRefusal(() => admin.runtimes.register.mutate({ orgId: place.orgId, name: "linux-large" }), { status: 409, code: "already_exists" }, listed);
    expect((await admin.runtimes.tag.mutate({ orgId: place.orgId, runtimeId: runtime.id, label: "arm64" })).labels).toEqual(["arm64", "gpu", "region=eu"]);
    expect((await admin.runtimes.untag.mutate({ orgId: place.orgId, runtimeId: runtime.id, label: "gpu" })).labels).toEqual(["arm64", "region=eu"]);

    const seen = makeEvent({ type: "run.started", envId, occurredAt: isoAgo(2000), payload: { runId: `${envId}-rt`, runtime: "linux-large" } });
    await send(place.engine, [seen]);
    const [seenRuntime] = await admin.runtimes.list.query({ orgId: place.orgId });
    expect(seenRuntime).toMatchObject({ lastSeenAt: seen.occurredAt, runs: 1 });
    expect((await viewer.runs.get.query({ orgId: place.orgId, runId: `${envId}-rt` })).runtime).toEqual({ name: "linux-large", registered: true });

    await admin.runtimes.remove.mutate({ orgId: place.orgId, runtimeId: runtime.id });
    expect(await admin.runtimes.list.query({ orgId: place.orgId })).toEqual([]);
    expect((await admin.runtimes.list.query({ orgId: place.orgId, includeRemoved: true }))[0]).toMatchObject({
      name: "linux-large",
      removedAt: expect.any(String),
    });
    expect((await viewer.runs.get.query({ orgId: place.orgId, runId: `${envId}-rt` })).runtime).toEqual({ name: "linux-large", registered: false });
    await expectRefusal(() => admin.runtimes.tag.mutate({ orgId: place.orgId, runtimeId: runtime.id, label: "x" }), { status: 404, code: "not_found" }, listed);
    // The name is free again.
    expect(await admin.runtimes.register.mutate({ orgId: place.orgId, name: "linux-large" })).toMatchObject({ runs: 1 });
    expect((await auditEntries(place.orgId, "runtime.removed")).map((entry) => entry.target)).toEqual(["linux-large"]);
    expect((await auditEntries(place.orgId, "runtime.tagged")).length).toBe(1);
  });

  it("refuses a name or label of the wrong shape, and members (not managers) are refused", async () => {
    const listed = () => admin.runtimes.list.query({ orgId: place.orgId, includeRemoved: true });
    const invalid = { status: 400, code: "invalid_request" } as const;
    await expectRefusal(() => admin.runtimes.register.mutate({ orgId: place.orgId, name: "has space" }), invalid, listed);
    await expectRefusal(() => admin.runtimes.register.mutate({ orgId: place.orgId, name: "ok", labels: ["-bad"] }), invalid, listed);
    const member = await rpcClient(place.sessions.member);
    await expectRefusal(() => member.runtimes.list.query({ orgId: place.orgId }), { status: 403, code: "forbidden" });
  });
});

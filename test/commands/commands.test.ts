import { beforeEach, describe, expect, it } from "vitest";
import { expectRefusal } from "../support/refusals";
import { call } from "../support/http";
import { makeEvent, postEvents } from "../support/events";
import { seedOrganization, seedToken } from "../support/seed";
import { asRole } from "../support/sql";
import { claim as claimRun, runRow, seedCommand, seedEnvironment, seedRun, type Claimed } from "../support/workloads";

let orgId: string;
let engine: string;

beforeEach(async () => {
  orgId = (await seedOrganization("cmds")).id;
  engine = (await seedToken(orgId, "engine")).token;
  await seedEnvironment(engine, "env-1");
});

interface Leased {
  commands: Array<{ id: string; kind: string; envId: string; runId: string | null; lease: { id: string; expiresAt: string } }>;
}

const claimCommands = async (token = engine, json?: unknown) => call("/v1/commands/claim", { method: "POST", token, ...(json === undefined ? {} : { json }) });
const ack = (id: string, json: unknown, token = engine) => call(`/v1/commands/${id}/ack`, { method: "POST", token, json });
const suspend = () => asRole("superuser", (client) => client.query("UPDATE organizations SET suspended_at = now() WHERE id = $1", [orgId]));

describe("POST /v1/commands/claim", () => {
  it("hands waiting teardowns and cancellations of the organization to the engine, each with a lease, once", async () => {
    const runId = await seedRun(orgId, "env-1");
    const teardown = await seedCommand(orgId, "env-1", "teardown");
    const cancel = await seedCommand(orgId, "env-1", "cancel", runId);
    const response = await claimCommands();
    expect(response.status).toBe(200);
    const { commands } = (await response.json()) as Leased;
    expect(commands).toEqual([
      { id: teardown, kind: "teardown", envId: "env-1", runId: null, lease: { id: expect.any(String), expiresAt: expect.any(String) } },
      { id: cancel, kind: "cancel", envId: "env-1", runId, lease: { id: expect.any(String), expiresAt: expect.any(String) } },
    ]);
    expect(await (await claimCommands(engine, {})).json()).toEqual({ commands: [] });
  });

  it("is reachable while the organization is suspended", async () => {
    const teardown = await seedCommand(orgId, "env-1", "teardown");
    await suspend();
    const response = await claimCommands();
    expect(response.status).toBe(200);
    expect(((await response.json()) as Leased).commands.map((command) => command.id)).toEqual([teardown]);
  });

  it("hands a command out again once its lease expired unacknowledged", async () => {
    const teardown = await seedCommand(orgId, "env-1", "teardown");
    await claimCommands();
    await asRole("superuser", (client) => client.query("UPDATE runtime_commands SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [teardown]));
    expect(((await (await claimCommands()).json()) as Leased).commands.map((command) => command.id)).toEqual([teardown]);
  });

  it("never hands out another organization's commands; 400 on a bad body, 401 without a token", async () => {
    const other = (await seedOrganization("cmds-other")).id;
    await seedCommand(other, "env-1", "teardown");
    expect(await (await claimCommands()).json()).toEqual({ commands: [] });
    expect((await claimCommands(engine, { limit: 0 })).status).toBe(400);
    expect((await call("/v1/commands/claim", { method: "POST" })).status).toBe(401);
  });

  it("leases nothing to a token it refuses, though the claim is sent with the token's look-up", async () => {
    const teardown = await seedCommand(orgId, "env-1", "teardown");
    const command = async () =>
      asRole(
        "superuser",
        async (client) => (await client.query("SELECT state, lease_id, holder_token_id FROM runtime_commands WHERE id = $1", [teardown])).rows[0],
      );
    await expectRefusal(() => claimCommands("not-a-token"), { status: 401, code: "unauthenticated" }, command);
    expect(await command()).toEqual({ state: "waiting", lease_id: null, holder_token_id: null });
  });
});

describe("POST /v1/commands/{id}/ack", () => {
  it("records what happened, only from the lease holder; anything matching no row answers 409", async () => {
    const runId = await seedRun(orgId, "env-1");
    const cancel = await seedCommand(orgId, "env-1", "cancel", runId);
    const leased = ((await (await claimCommands()).json()) as Leased).commands[0]!;

    const command = async () =>
      asRole("superuser", async (client) => (await client.query("SELECT state, outcome, lease_id FROM runtime_commands WHERE id = $1", [cancel])).rows[0]);
    const notHeld = { status: 409, code: "lease_not_held" } as const;
    await expectRefusal(() => ack(cancel, { leaseId: crypto.randomUUID(), outcome: "done" }), notHeld, command);
    await expectRefusal(() => ack(crypto.randomUUID(), { leaseId: leased.lease.id, outcome: "done" }), notHeld, command);
    await expectRefusal(() => ack("not-a-uuid", { leaseId: leased.lease.id, outcome: "done" }), notHeld, command);
    await expectRefusal(() => ack(cancel, { leaseId: leased.lease.id }), { status: 400, code: "invalid_request" }, command);

    const response = await ack(cancel, { leaseId: leased.lease.id, outcome: "failed", message: "the run had already ended" });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: cancel, kind: "cancel", state: "acknowledged", outcome: "failed", confirmed: null });
    const row = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT state, outcome, message FROM runtime_commands WHERE id = $1", [cancel])).rows[0],
    );
    expect(row).toEqual({ state: "acknowledged", outcome: "failed", message: "the run had already ended" });
    await expectRefusal(() => ack(cancel, { leaseId: leased.lease.id, outcome: "done" }), notHeld, command);
  });

  it("answers 409 for another organization's command", async () => {
    const other = (await seedOrganization("cmds-other")).id;
    const otherEngine = (await seedToken(other, "engine")).token;
    const theirs = await seedCommand(other, "env-1", "teardown");
    const leased = ((await (await claimCommands(otherEngine)).json()) as Leased).commands[0]!;
    const theirCommand = async () =>
      asRole("superuser", async (client) => (await client.query("SELECT state, outcome FROM runtime_commands WHERE id = $1", [theirs])).rows[0]);
    await expectRefusal(() => ack(theirs, { leaseId: leased.lease.id, outcome: "done" }), { status: 409, code: "lease_not_held" }, theirCommand);
  });

  it("answers 403 while the organization is suspended", async () => {
    const teardown = await seedCommand(orgId, "env-1", "teardown");
    const leased = ((await (await claimCommands()).json()) as Leased).commands[0]!;
    await suspend();
    const command = async () =>
      asRole("superuser", async (client) => (await client.query("SELECT state, outcome, lease_id FROM runtime_commands WHERE id = $1", [teardown])).rows[0]);
    // The acknowledgement is written in the round trip that refuses the token: it must change nothing.
    await expectRefusal(() => ack(teardown, { leaseId: leased.lease.id, outcome: "done" }), { status: 403, code: "organization_suspended" }, command);
  });
});

describe("teardown confirmation", () => {
  it("says so when nothing confirmed a teardown, and counts the engine's environment.torn_down event as confirmation", async () => {
    const unconfirmed = await seedCommand(orgId, "env-1", "teardown");
    const first = ((await (await claimCommands()).json()) as Leased).commands[0]!;
    const answer = await (await ack(unconfirmed, { leaseId: first.lease.id, outcome: "done" })).json();
    expect(answer).toMatchObject({ confirmed: false, note: expect.stringMatching(/nothing has confirmed/) });

    const confirmedLater = await seedCommand(orgId, "env-1", "teardown");
    const second = ((await (await claimCommands()).json()) as Leased).commands[0]!;
    await postEvents(engine, [makeEvent({ type: "environment.torn_down", envId: "env-1", sequence: 9, payload: { repository: "acme/shop" } })]);
    expect(await (await ack(confirmedLater, { leaseId: second.lease.id, outcome: "done" })).json()).toEqual({
      id: confirmedLater,
      kind: "teardown",
      state: "acknowledged",
      outcome: "done",
      confirmed: true,
    });
    const rows = await asRole(
      "superuser",
      async (client) =>
        (await client.query("SELECT id, confirmed_at IS NOT NULL AS confirmed FROM runtime_commands WHERE org_id = $1 ORDER BY created_at", [orgId])).rows,
    );
    expect(rows).toEqual([
      { id: unconfirmed, confirmed: true },
      { id: confirmedLater, confirmed: true },
    ]);
  });
});

describe("a cancellation command and the run it names", () => {
  it("leaves the run held until the engine's own workload.cancelled event ends it", async () => {
    const runId = await seedRun(orgId, "env-1");
    const { run } = (await (await claimRun(engine, "env-1")).json()) as Claimed;
    await seedCommand(orgId, "env-1", "cancel", runId);
    expect(await runRow(runId)).toMatchObject({ state: "accepted" });
    await postEvents(engine, [makeEvent({ type: "workload.cancelled", payload: { runId, leaseId: run!.lease.id } })]);
    expect(await runRow(runId)).toMatchObject({ state: "cancelled" });
  });
});

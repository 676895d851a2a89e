// The console's live channel (worker/live): who may open it, what it carries and to whom, and when
// the server closes it.
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import worker from "../../worker/index";
import { liveChannel } from "../../worker/object-calls";
import { LIVE_CLOSE, LIVE_LIMITS, LIVE_MAX_AGE_MS, type LiveChange, type LiveMessage } from "../../worker/shared/live";
import { makeEvent, postEvents } from "../support/events";
import { BASE, call } from "../support/http";
import { adminMutation, dataOf, signedInOperator } from "../support/operators";
import { rpcClient } from "../support/rpc";
import { seedOrganization, seedToken } from "../support/seed";
import { browser, seedPerson, seedSession } from "../support/sessions";
import { asRole } from "../support/sql";
import { claim, seedEnvironment, seedRun } from "../support/workloads";

const ALL = "environments,records,workloads";
const READY = { repository: "acct/shop", branch: "main" };

/** An open channel: what it heard, and how it was closed (if it was). */
interface Channel {
  heard: LiveChange[];
  /** What the server said just before it closed (LiveClosing). */
  closing: { code: number; reason: string } | null;
  closed: { code: number; reason: string } | null;
  socket: WebSocket;
}

const open: Channel[] = [];
// Every socket ends with its test, its close seen: none is left for the pool's shutdown to cut.
afterEach(async () => {
  const channels = open.splice(0);
  for (const channel of channels) if (!channel.closed) channel.socket.close(1000);
  await within2s(() => channels.every((channel) => channel.closed !== null));
});

function upgrade(sessionToken: string | null, query: string, headers: Record<string, string> = {}) {
  const request = new Request(`${BASE}/console/api/live?${query}`, {
    headers: { upgrade: "websocket", origin: BASE, ...(sessionToken ? { cookie: `svc_session=${sessionToken}` } : {}), ...headers },
  });
  return worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, env, createExecutionContext());
}

async function listen(sessionToken: string, orgId: string, topics = ALL): Promise<Channel> {
  const response = await upgrade(sessionToken, `orgId=${orgId}&topics=${topics}`);
  expect(response.status).toBe(101);
  const socket = response.webSocket!;
  const channel: Channel = { heard: [], closing: null, closed: null, socket };
  socket.accept();
  socket.addEventListener("message", (event) => {
    if (event.data === "pong") return; // the keep-alive's answer
    const message = JSON.parse(event.data as string) as LiveMessage;
    if ("closing" in message) channel.closing = message.closing;
    else channel.heard.push(message);
  });
  socket.addEventListener("close", (event) => {
    channel.closed = { code: event.code, reason: event.reason };
  });
  open.push(channel);
  return channel;
}

/** Waits (at most the 2 seconds a page has) until `done` holds. */
async function within2s(done: () => boolean): Promise<void> {
  for (const stop = Date.now() + 2000; !done(); ) {
    if (Date.now() > stop) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Lets anything that could still arrive arrive. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

let orgId: string;
let engine: string;
let ownerId: string;
let owner: string;

beforeEach(async () => {
  orgId = (await seedOrganization("live")).id;
  engine = (await seedToken(orgId, "engine")).token;
  ownerId = await seedPerson(`live-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "owner" }]);
  owner = await seedSession(ownerId);
});

const refusal = async (response: Response) => ({ status: response.status, error: ((await response.json()) as { error: string }).error });
const said = (status: number, words: RegExp) => ({ status, error: expect.stringMatching(words) });

describe("opening the live channel", () => {
  it("refuses what is not a WebSocket, no session, another site, a stranger, an unknown topic and a suspended organization", async () => {
    expect(await refusal(await call(`/console/api/live?orgId=${orgId}&topics=${ALL}`, { headers: { cookie: `svc_session=${owner}` } }))).toEqual(
      said(400, /as a WebSocket/),
    );
    expect(await refusal(await upgrade(null, `orgId=${orgId}&topics=${ALL}`))).toEqual(said(401, /sign in/i));
    // Who before what: without a session, neither another site, nor a request that is no upgrade, nor a bad topic is told apart.
    expect(await refusal(await upgrade(null, `orgId=${orgId}&topics=${ALL}`, { origin: "https://evil.example" }))).toEqual(said(401, /sign in/i));
    expect(await refusal(await call(`/console/api/live?orgId=${orgId}&topics=${ALL}`))).toEqual(said(401, /sign in/i));
    expect(await refusal(await upgrade(null, `orgId=${orgId}&topics=secrets`))).toEqual(said(401, /sign in/i));
    expect(await refusal(await upgrade(owner, `orgId=${orgId}&topics=${ALL}`, { origin: "https://evil.example" }))).toEqual(said(403, /own pages/));
    const stranger = await seedSession(await seedPerson(`stranger-${crypto.randomUUID().slice(0, 6)}`));
    expect(await refusal(await upgrade(stranger, `orgId=${orgId}&topics=${ALL}`))).toEqual(said(404, /No such organization/));
    expect(await refusal(await upgrade(owner, `orgId=${orgId}&topics=environments,secrets`))).toEqual(said(400, /topics/));

    const operator = await signedInOperator();
    await dataOf(adminMutation(operator.cookie, operator.csrf, "admin.suspend", { organizationId: orgId, reason: "unpaid" }));
    expect(await refusal(await upgrade(owner, `orgId=${orgId}&topics=${ALL}`))).toEqual(said(403, /suspended/));
  });
});

describe("what the channel carries", () => {
  it("tells each channel of the organization what changed, by topic and environment, and nothing to another organization", async () => {
    const everything = await listen(owner, orgId);
    const viewer = await seedSession(await seedPerson(`viewer-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "viewer" }]));
    const workloadsOnly = await listen(viewer, orgId, "workloads");
    const other = await seedOrganization("live-other");
    const otherOwner = await seedSession(await seedPerson(`other-${crypto.randomUUID().slice(0, 6)}`, [{ orgId: other.id, role: "owner" }]));
    const elsewhere = await listen(otherOwner, other.id);

    // An environment's state, through its object; a run's records, through ingestion.
    const envId = `env-${crypto.randomUUID().slice(0, 8)}`;
    expect((await postEvents(engine, [makeEvent({ type: "environment.ready", envId, sequence: 1, payload: READY })])).status).toBe(202);
    await within2s(() => everything.heard.length >= 1);
    expect(everything.heard).toEqual([{ topic: "environments", envId }]);
    const started = makeEvent({ type: "run.started", envId, payload: { runId: "r1", name: "suite" } });
    expect(
      (await postEvents(engine, [started, makeEvent({ type: "verdict.recorded", envId, payload: { runId: "r1", name: "a", verdict: "pass" } })])).status,
    ).toBe(202);
    await within2s(() => everything.heard.length >= 2);
    // One change for the batch, not one per event; a retried batch (all duplicates) changes nothing.
    expect((await postEvents(engine, [started])).status).toBe(202);
    await settle();
    expect(everything.heard).toEqual([
      { topic: "environments", envId },
      { topic: "records", envId },
    ]);
    expect(workloadsOnly.heard).toEqual([]);
    expect(elsewhere.heard).toEqual([]);
  });

  it("tells of a workload run an engine claimed (through the environment's object) and one a person started", async () => {
    const envId = `env-${crypto.randomUUID().slice(0, 8)}`;
    await seedEnvironment(engine, envId);
    await seedRun(orgId, envId);
    const channel = await listen(owner, orgId, "workloads");
    expect((await claim(engine, envId)).status).toBe(200);
    await within2s(() => channel.heard.length >= 1);
    expect(channel.heard).toEqual([{ topic: "workloads", envId }]);

    await (await rpcClient(owner)).workloads.define.mutate({ orgId, name: `nightly-${crypto.randomUUID().slice(0, 6)}`, compiled: { steps: ["load"] } });
    await within2s(() => channel.heard.length >= 2);
    // A console's change names no environment: every page of the topic reads again.
    expect(channel.heard[1]).toEqual({ topic: "workloads" });
  });
});

describe("what a change costs while nobody watches", () => {
  const watchedUntil = async () =>
    (
      await asRole("superuser", (client) =>
        client.query<{ ahead: number | null }>("SELECT extract(epoch FROM watched_until - now())::int AS ahead FROM organizations WHERE id = $1", [orgId]),
      )
    ).rows[0]!.ahead;
  const setWatchedUntil = (interval: string) =>
    asRole("superuser", (client) => client.query(`UPDATE organizations SET watched_until = now() + interval '${interval}' WHERE id = $1`, [orgId]));

  it("marks the organization watched past a channel's longest life when one opens; once the mark is past, nobody is told", async () => {
    expect(await watchedUntil()).toBeNull();
    const channel = await listen(owner, orgId);
    expect(await watchedUntil()).toBeGreaterThan(LIVE_MAX_AGE_MS / 1000);

    // The mark past (as an hour after the last opening): the engines' changes, the environment's object
    // and the console's procedures tell nobody.
    await setWatchedUntil("-1 second");
    const envId = `env-${crypto.randomUUID().slice(0, 8)}`;
    expect((await postEvents(engine, [makeEvent({ type: "environment.ready", envId, sequence: 1, payload: READY })])).status).toBe(202);
    expect((await postEvents(engine, [makeEvent({ type: "run.started", envId, payload: { runId: "quiet", name: "suite" } })])).status).toBe(202);
    await (await rpcClient(owner)).workloads.define.mutate({ orgId, name: `quiet-${crypto.randomUUID().slice(0, 6)}`, compiled: { steps: ["load"] } });
    await settle();
    expect(channel.heard).toEqual([]);

    await setWatchedUntil("1 hour");
    expect((await postEvents(engine, [makeEvent({ type: "run.started", envId, payload: { runId: "heard", name: "suite" } })])).status).toBe(202);
    await within2s(() => channel.heard.length >= 1);
    expect(channel.heard).toEqual([{ topic: "records", envId }]);
  });
});

describe("when the server closes it", () => {
  it("closes a removed member's channels for good and asks a member whose role changed to open again; others keep theirs", async () => {
    const goneId = await seedPerson(`gone-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "member" }]);
    const gone = await listen(await seedSession(goneId), orgId);
    const movedId = await seedPerson(`moved-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "member" }]);
    const moved = await listen(await seedSession(movedId), orgId);
    const staying = await listen(owner, orgId);
    const client = await rpcClient(owner);

    await client.members.remove.mutate({ orgId, personId: goneId });
    await within2s(() => gone.closed !== null);
    expect(gone.closed).toEqual({ code: LIVE_CLOSE.ended, reason: "Your membership of this organization ended." });
    // Said first, so a browser knows at once (it reports the close itself only once the connection ended).
    expect(gone.closing).toEqual(gone.closed);

    await client.members.changeRole.mutate({ orgId, personId: movedId, role: "viewer" });
    await within2s(() => moved.closed !== null);
    expect(moved.closed?.code).toBe(LIVE_CLOSE.renew);

    expect((await postEvents(engine, [makeEvent({ type: "environment.ready", envId: "after", sequence: 1, payload: READY })])).status).toBe(202);
    await within2s(() => staying.heard.length >= 1);
    expect(staying.heard).toEqual([{ topic: "environments", envId: "after" }]);
    expect(staying.closed).toBeNull();
    expect(gone.heard).toEqual([]);
  });

  it("closes a session's channel when an admin signs it out, and every channel when the operator suspends the organization", async () => {
    const memberId = await seedPerson(`signed-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "member" }]);
    const memberSession = await seedSession(memberId);
    const member = await listen(memberSession, orgId);
    const ownerChannel = await listen(owner, orgId);
    const client = await rpcClient(owner);
    const { id: sessionId } = (await client.sessions.list.query({ orgId })).find((session) => session.personId === memberId)!;
    await client.sessions.signOut.mutate({ orgId, sessionId });
    await within2s(() => member.closed !== null);
    expect(member.closed).toEqual({ code: LIVE_CLOSE.ended, reason: "This session was signed out." });
    expect(ownerChannel.closed).toBeNull();

    const operator = await signedInOperator();
    await dataOf(adminMutation(operator.cookie, operator.csrf, "admin.suspend", { organizationId: orgId, reason: "unpaid" }));
    await within2s(() => ownerChannel.closed !== null);
    expect(ownerChannel.closed).toEqual({ code: LIVE_CLOSE.ended, reason: "The organization was suspended." });
  });
});

describe("every end of a session or membership, in every organization", () => {
  /** A person belonging to this organization and another, with a channel open in each on one session. */
  async function inTwo() {
    const other = (await seedOrganization("live-two")).id;
    const personId = await seedPerson(`two-${crypto.randomUUID().slice(0, 6)}`, [
      { orgId, role: "member" },
      { orgId: other, role: "member" },
    ]);
    const session = await seedSession(personId);
    return { other, personId, session, here: await listen(session, orgId), there: await listen(session, other) };
  }
  const signedOut = { code: LIVE_CLOSE.ended, reason: "This session was signed out." };

  it("the person's own sign-out closes the session's channels in each organization", async () => {
    const { session, here, there } = await inTwo();
    const me = browser(session);
    expect((await me.post("/auth/signout", {}, await me.csrf())).status).toBe(200);
    await within2s(() => here.closed !== null && there.closed !== null);
    expect([here.closed, there.closed]).toEqual([signedOut, signedOut]);
  });

  it("removal from one organization signs the person out everywhere, and closes their channels in the others too", async () => {
    const { personId, here, there } = await inTwo();
    await (await rpcClient(owner)).members.remove.mutate({ orgId, personId });
    await within2s(() => here.closed !== null && there.closed !== null);
    expect(here.closed).toEqual({ code: LIVE_CLOSE.ended, reason: "Your membership of this organization ended." });
    expect(there.closed).toEqual(signedOut);
  });

  it("an admin's sign-out of every session of a member closes their channels in the others too", async () => {
    const { personId, here, there } = await inTwo();
    await (await rpcClient(owner)).sessions.signOutAll.mutate({ orgId, personId });
    await within2s(() => here.closed !== null && there.closed !== null);
    expect([here.closed, there.closed]).toEqual([signedOut, signedOut]);
  });

  it("a socket whose check came before an end is closed as it opens: the end it missed is told", async () => {
    const memberId = await seedPerson(`raced-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "member" }]);
    const session = await seedSession(memberId);
    // The end reaches the object between the route's check (the session still live in the database) and the socket's arrival.
    await liveChannel(env, orgId).end({ personId: memberId }, LIVE_CLOSE.ended, "Your membership of this organization ended.");
    const raced = await listen(session, orgId);
    await within2s(() => raced.closed !== null);
    expect(raced.closed).toEqual({ code: LIVE_CLOSE.ended, reason: "Your membership of this organization ended." });
    // A renewal asks for a new socket: the one opened after it stays open.
    await liveChannel(env, orgId).end({ personId: ownerId }, LIVE_CLOSE.renew, "Your role changed; the channel opens again under it.");
    await new Promise((resolve) => setTimeout(resolve, 5));
    const reopened = await listen(owner, orgId);
    await settle();
    expect(reopened.closed).toBeNull();
  });
});

describe("the channel's limits", () => {
  it("refuses a person's channel past LIVE_LIMITS.perPerson with 429 until one closes", async () => {
    const channels: Channel[] = [];
    for (let i = 0; i < LIVE_LIMITS.perPerson; i++) channels.push(await listen(owner, orgId, "workloads"));
    const refused = await upgrade(owner, `orgId=${orgId}&topics=workloads`);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: expect.stringMatching(/close a tab/), retryAfterSeconds: 60 });
    channels[0]!.socket.close(1000);
    await within2s(() => channels[0]!.closed !== null);
    await listen(owner, orgId, "workloads");
  });

  it("closes a socket that sends anything but ping, whatever its size", async () => {
    const chatty = await listen(owner, orgId);
    chatty.socket.send("x".repeat(64 * 1024));
    await within2s(() => chatty.closed !== null);
    expect(chatty.closed).toEqual({ code: LIVE_CLOSE.unexpected, reason: "The live channel takes only ping." });
    const quiet = await listen(owner, orgId);
    quiet.socket.send("ping");
    await settle();
    expect(quiet.closed).toBeNull();
  });
});

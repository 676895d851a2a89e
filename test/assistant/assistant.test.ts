// The website assistant as an owner's browser uses it: status, a question answered as a stream that
// cites documentation pages, owners only, off without SVC_CMS_MODEL_API_KEY, the daily limits at
// their boundary and under a race, usage settled, analytics without content, and nothing of the
// question in the logs.
import { beforeAll, describe, expect, it } from "vitest";
import type { Role } from "../../db/schema";
import { pseudonym } from "../../worker/analytics/client";
import { DAILY_REQUESTS, DAILY_TOKENS, utcDay } from "../../worker/assistant/limits";
import { BASE } from "../support/http";
import { captureLogs } from "../support/logs";
import { analyticsEvents, fakeCalls, proxyEnv, SURROGATE_SECRET, uniqueKey, workerFetch } from "../support/providers";
import { rpcClient } from "../support/rpc";
import { seedOrganization } from "../support/seed";
import { browser, seedPerson, seedSession } from "../support/sessions";
import { asRole } from "../support/sql";
import { statusAndCode } from "../support/refusals";

const SITE = "https://site.example";

async function caller(role: Role, env: Record<string, string | undefined>) {
  const orgId = (await seedOrganization("assist")).id;
  const personId = await seedPerson(`assist-${role}-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role }]);
  const session = await seedSession(personId);
  const csrf = await browser(session).csrf();
  const worker = workerFetch(env);
  const ask = (question: string) =>
    worker.fetch(`${BASE}/console/api/assistant`, {
      method: "POST",
      headers: { cookie: `svc_session=${session}`, "x-svc-csrf": csrf, "content-type": "application/json" },
      body: JSON.stringify({ orgId, question }),
    });
  const status = async () => (await rpcClient(session, { env: env as Record<string, string> })).assistant.status.query({ orgId });
  return { orgId, personId, ask, status, settled: worker.settled };
}

const assistantEnv = (key = uniqueKey("assistant")) => ({ ...proxyEnv({ SVC_CMS_MODEL_API_KEY: key, SVC_SITE_ORIGIN: SITE }), key });

/** The stream's events in order, each parsed. */
async function events(response: Response): Promise<Array<{ event: string; data: any }>> {
  return (await response.text())
    .split("\n\n")
    .filter(Boolean)
    .map((block) => {
      const [event, data] = block.split("\n");
      return { event: event!.slice("event: ".length), data: JSON.parse(data!.slice("data: ".length)) };
    });
}

const usageRow = (personId: string) =>
  asRole("superuser", async (client) => {
    const { rows } = await client.query(
      "SELECT requests, used_tokens::int AS used, reserved_tokens::int AS reserved FROM assistant_usage WHERE person_id = $1 AND day = $2",
      [personId, utcDay(new Date())],
    );
    return (rows[0] as { requests: number; used: number; reserved: number } | undefined) ?? null;
  });

const setUsage = (personId: string, requests: number, used: number) =>
  asRole("superuser", (client) =>
    client.query("INSERT INTO assistant_usage (person_id, day, requests, used_tokens) VALUES ($1, $2, $3, $4)", [personId, utcDay(new Date()), requests, used]),
  );

describe("asking", () => {
  // Seeded, and the status read, before the first test: the isolate's first requests are slow to start.
  const { key, ...env } = assistantEnv();
  let owner: Awaited<ReturnType<typeof caller>>;
  let before: Awaited<ReturnType<Awaited<ReturnType<typeof caller>>["status"]>>;
  beforeAll(async () => {
    owner = await caller("owner", env);
    before = await owner.status();
  });

  it("streams the sources, then the answer, then the usage, settled in the owner's day and reported without content", async () => {
    // The suite's messages provider is the fake on a loopback address: the page says a local fake answers.
    expect(before).toMatchObject({ on: true, available: true, remaining: { requests: DAILY_REQUESTS, tokens: DAILY_TOKENS }, localModel: true });
    const question = "How do I connect my repository?";
    let used = 0;
    const logs = await captureLogs(async () => {
      const response = await owner.ask(question);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toContain("text/event-stream");
      const stream = await events(response);
      await owner.settled();

      expect(stream[0]!.event).toBe("sources");
      expect(stream[0]!.data.sources).toContainEqual({ title: "Getting started: 2. The engine in a workflow", url: `${SITE}/docs/#engine` });
      const deltas = stream.filter((entry) => entry.event === "delta").map((entry) => entry.data.text);
      // The fake answers with the first excerpt's words, as a model citing it would.
      expect(deltas.join("")).toMatch(/^According to \[1\]: \S/);
      const usage = stream.at(-1)!;
      expect(usage.event).toBe("usage");
      expect(usage.data.remaining.requests).toBe(DAILY_REQUESTS - 1);

      used = usage.data.inputTokens + usage.data.outputTokens;
      expect(await usageRow(owner.personId)).toEqual({ requests: 1, used, reserved: 0 });
      expect(usage.data.remaining.tokens).toBe(DAILY_TOKENS - used);
    });
    expect(logs.text).not.toContain("connect my repository");

    // The operator's key went upstream, streamed, with the assistant's output bound.
    expect(await fakeCalls("messages", key)).toEqual([expect.objectContaining({ key, model: "claude-haiku-4-5", stream: true, maxTokens: 1024 })]);
    const distinctId = await pseudonym(SURROGATE_SECRET, owner.orgId);
    const [reported] = (await analyticsEvents()).filter((event) => event.distinct_id === distinctId);
    expect(reported).toMatchObject({ event: "$ai_generation", properties: { $ai_model: "claude-haiku-4-5", $ai_provider: "messages-provider" } });
    expect(JSON.stringify(reported)).not.toContain("connect my repository");
    expect(JSON.stringify(reported)).not.toContain(owner.orgId);

    expect(await owner.status()).toMatchObject({ on: true, available: true, reason: null, used: { requests: 1, tokens: used } });
  });

  it("is for owners only: an admin or a member gets 403 and nothing is counted", async () => {
    const { key, ...env } = assistantEnv();
    for (const role of ["admin", "member"] as const) {
      const person = await caller(role, env);
      const response = await person.ask("How do I connect my repository?");
      expect(statusAndCode(response)).toEqual([403, "forbidden"]);
      expect(((await response.json()) as { error: string }).error).toBe("The website assistant answers the organization's owners only.");
      expect(await usageRow(person.personId)).toBeNull();
      expect(await person.status()).toMatchObject({ on: true, available: false });
    }
    expect(await fakeCalls("messages", key)).toEqual([]);
  });

  it("refuses a question longer than 2,000 characters with 400 naming it", async () => {
    const { key: _key, ...env } = assistantEnv();
    const owner = await caller("owner", env);
    const response = await owner.ask("x".repeat(2001));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toContain("question");
  });

  it("is off without SVC_CMS_MODEL_API_KEY: the status says so naming the variable, and asking is refused", async () => {
    const owner = await caller("owner", proxyEnv());
    const status = await owner.status();
    expect(status).toMatchObject({ on: false, available: false });
    expect(status.reason).toContain("SVC_CMS_MODEL_API_KEY");
    const response = await owner.ask("How do I connect my repository?");
    expect(response.status).toBe(412);
    expect(((await response.json()) as { error: string }).error).toContain("SVC_CMS_MODEL_API_KEY");
  });
});

describe("the daily limits", () => {
  it("answer the 40th request and refuse the 41st with 429, Retry-After and when they reset", async () => {
    const { key: _key, ...env } = assistantEnv();
    const owner = await caller("owner", env);
    await setUsage(owner.personId, DAILY_REQUESTS - 1, 0);
    const fortieth = await owner.ask("What does rate_limited mean?");
    expect(fortieth.status).toBe(200);
    await fortieth.text();
    await owner.settled();

    const refused = await owner.ask("What does rate_limited mean?");
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { error: string; retryAfterSeconds: number };
    expect(body.error).toMatch(/^You have asked the assistant 40 questions today, its daily limit\. The limits reset at 00:00 UTC \(in .+\)\.$/);
    expect(refused.headers.get("retry-after")).toBe(String(body.retryAfterSeconds));
    expect(body.retryAfterSeconds).toBeGreaterThan(0);
    expect(body.retryAfterSeconds).toBeLessThanOrEqual(86_400);
    expect((await usageRow(owner.personId))!.requests).toBe(DAILY_REQUESTS);
  });

  it("refuse a question whose token reservation would pass 180,000", async () => {
    const { key, ...env } = assistantEnv();
    const owner = await caller("owner", env);
    await setUsage(owner.personId, 5, DAILY_TOKENS - 1000);
    const refused = await owner.ask("How do I connect my repository?");
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: string }).error).toMatch(
      /^This question could use up to [\d,]+ tokens, more than the 1,000 left of your 180,000 for today\. The limits reset at 00:00 UTC/,
    );
    expect(await usageRow(owner.personId)).toEqual({ requests: 5, used: DAILY_TOKENS - 1000, reserved: 0 });
    expect(await fakeCalls("messages", key)).toEqual([]);
  });

  it("hold under a race: 15 questions at once with 10 requests left answer exactly 10", async () => {
    const { key, ...env } = assistantEnv();
    const owner = await caller("owner", env);
    await setUsage(owner.personId, DAILY_REQUESTS - 10, 0);
    const responses = await Promise.all(Array.from({ length: 15 }, () => owner.ask("How do I create an engine token?")));
    await Promise.all(responses.map((response) => response.text()));
    await owner.settled();
    expect(responses.map((response) => response.status).sort()).toEqual([...Array(10).fill(200), ...Array(5).fill(429)]);
    expect(await usageRow(owner.personId)).toMatchObject({ requests: DAILY_REQUESTS, reserved: 0 });
    expect(await fakeCalls("messages", key)).toHaveLength(10);
  });
});

// Budgets cannot be overrun: concurrent requests against a nearly spent budget each reserve their
// worst case in one conditional statement, and only those that fit reach the provider; a client
// that goes away mid-stream is still charged for what the provider produced.
import { describe, expect, it } from "vitest";
import { asRole } from "../support/sql";
import { fakeCalls, monthOf, PROXY, seedProviderOrg, spendOf, uniqueKey, workerFetch } from "../support/providers";

function ask(worker: ReturnType<typeof workerFetch>, token: string, body: Record<string, unknown>) {
  return worker.fetch(`${PROXY}/messages-provider/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": token, "content-type": "application/json" },
    body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], ...body }),
  });
}

describe("the budget", () => {
  it("lets 20 concurrent requests against a nearly spent budget spend no more than the cap", async () => {
    const key = uniqueKey("messages");
    const org = await seedProviderOrg({ keys: { "messages-provider": key }, budgets: { "messages-provider": 1 } });
    // $1 cap, all but 400 micro-dollars spent. Each request reserves about 165 µ$ (its body's bytes at
    // the input price, 16 tokens at the output price) and costs about 90: two fit at a time, a few in
    // all; twenty admitted at once would spend four times the room.
    await asRole("superuser", (client) =>
      client.query(
        `INSERT INTO provider_spend (org_id, provider, month, spent_micros) VALUES ($1, 'messages-provider', date_trunc('month', now() AT TIME ZONE 'UTC')::date, 999600)`,
        [org.orgId],
      ),
    );
    const worker = workerFetch();
    const responses = await Promise.all(Array.from({ length: 20 }, () => ask(worker, org.engine, { model: "claude-haiku-4-5", max_tokens: 16 })));
    // Read every answer, as a client does (a request's pool ends once its answer is sent).
    const bodies = await Promise.all(responses.map((response) => response.text()));
    await worker.settled();
    const statuses = responses.map((response) => response.status);
    const admitted = statuses.filter((status) => status === 200).length;
    expect(statuses.filter((status) => status !== 200).every((status) => status === 402)).toBe(true);
    expect(admitted).toBeGreaterThanOrEqual(1);
    expect(admitted).toBeLessThan(20);
    const refused = statuses.indexOf(402);
    expect(responses[refused]!.headers.get("x-svc-error-code")).toBe("budget_exceeded");
    expect(JSON.parse(bodies[refused]!)).toEqual({ error: expect.stringMatching(/more than is left of the messages-provider budget/) });
    // Only the admitted requests reached the provider, and the month stayed within the cap.
    expect(await fakeCalls("messages", key)).toHaveLength(admitted);
    const spend = (await spendOf(org.orgId, "messages-provider"))!;
    expect(spend.reserved).toBe(0);
    expect(spend.spent).toBeLessThanOrEqual(1_000_000);
    expect(spend.spent).toBeGreaterThan(999_600);
  });

  it("refuses every request while no budget is set, and one whose output bound alone exceeds the cap", async () => {
    const key = uniqueKey("messages");
    const org = await seedProviderOrg({ keys: { "messages-provider": key } });
    const none = await ask(workerFetch(), org.engine, { model: "claude-haiku-4-5", max_tokens: 10 });
    expect(none.status).toBe(402);
    expect(await none.json()).toEqual({ error: expect.stringMatching(/no monthly budget for messages-provider/) });
    await org.consoleApi("PUT", "/messages-provider/budget", { monthlyCapUsd: 0.01 });
    expect((await ask(workerFetch(), org.engine, { model: "claude-haiku-4-5", max_tokens: 10_000 })).status).toBe(402);
    expect(await fakeCalls("messages", key)).toEqual([]);
  });
});

describe("a client that disconnects mid-stream", () => {
  it("is charged for everything the provider produced: the upstream is read to its end", async () => {
    const key = uniqueKey("messages");
    const org = await seedProviderOrg({ keys: { "messages-provider": key }, budgets: { "messages-provider": 5 } });
    const worker = workerFetch();
    const response = await ask(worker, org.engine, { model: "slow-model", max_tokens: 1000, stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain("message_start");
    // Passed through as it arrives: the first event is here while the answer is still being produced.
    expect((await spendOf(org.orgId, "messages-provider"))!.reserved).toBeGreaterThan(0);
    await reader.cancel();
    // The slow model streams 40 words over a second; the proxy keeps reading after the client left.
    await worker.settled();
    const inputTokens = Number(/"input_tokens":(\d+)/.exec(first)![1]);
    // slow-model: $3 / $15 per million tokens (TEST_PRICES).
    expect(await spendOf(org.orgId, "messages-provider")).toEqual({ spent: Math.ceil(inputTokens * 3 + 40 * 15), reserved: 0, requests: 1 });
  });
});

describe("an answer that used more than its reservation", () => {
  it("is charged in full, its overrun past the cap recorded, audited and listed, and the next request refused", async () => {
    const key = uniqueKey("messages");
    const org = await seedProviderOrg({ keys: { "messages-provider": key }, budgets: { "messages-provider": 5 } });
    // 1,000 micro-dollars left: the request reserves about 600 (its bytes and 16 tokens at $3/$15),
    // and the fake then reports a million more input tokens than it was sent ($3 more).
    await asRole("superuser", (client) =>
      client.query(
        `INSERT INTO provider_spend (org_id, provider, month, spent_micros) VALUES ($1, 'messages-provider', date_trunc('month', now() AT TIME ZONE 'UTC')::date, 4999000)`,
        [org.orgId],
      ),
    );
    const worker = workerFetch();
    const streamed = await ask(worker, org.engine, { model: "fetching-model", max_tokens: 16, stream: true });
    expect(streamed.status).toBe(200);
    await streamed.text();
    await worker.settled();

    const month = (await monthOf(org.orgId, "messages-provider"))!;
    expect(month.reserved).toBe(0);
    expect(month.spent).toBeGreaterThan(7_999_000);
    // Nothing else was in flight: everything above the cap is this answer's overrun.
    expect(month.overrun).toBe(month.spent - 5_000_000);
    const audit = await asRole("superuser", (client) =>
      client.query(`SELECT actor_label, data FROM audit_log WHERE org_id = $1 AND action = 'provider_budget.overrun'`, [org.orgId]),
    );
    expect(audit.rows).toEqual([
      {
        actor_label: "model proxy",
        data: {
          provider: "messages-provider",
          month: expect.stringMatching(/^\d{4}-\d{2}$/),
          overrunUsd: month.overrun / 1e6,
          spentUsd: month.spent / 1e6,
          monthlyCapUsd: 5,
        },
      },
    ]);
    const listed = (await (await org.consoleApi("GET", "")).json()) as {
      providers: Array<{ provider: string; budget: { overrunUsd: number; spentUsd: number } }>;
    };
    expect(listed.providers.find((entry) => entry.provider === "messages-provider")!.budget).toMatchObject({
      overrunUsd: month.overrun / 1e6,
      spentUsd: month.spent / 1e6,
    });

    // The budget is used up: the smallest request is refused, and nothing more reaches the provider.
    const next = await ask(workerFetch(), org.engine, { model: "claude-haiku-4-5", max_tokens: 1 });
    expect(next.status).toBe(402);
    expect(next.headers.get("x-svc-error-code")).toBe("budget_exceeded");
    expect(await next.json()).toEqual({ error: expect.stringMatching(/budget for \d{4}-\d{2} is used up .* past the cap/) });
    expect(await fakeCalls("messages", key)).toHaveLength(1);
    expect((await monthOf(org.orgId, "messages-provider"))!.spent).toBe(month.spent);
  });

  it("records no overrun when the answer stays within the cap", async () => {
    const key = uniqueKey("messages");
    const org = await seedProviderOrg({ keys: { "messages-provider": key }, budgets: { "messages-provider": 5 } });
    const worker = workerFetch();
    await (await ask(worker, org.engine, { model: "fetching-model", max_tokens: 16 })).text();
    await worker.settled();
    // $3 and change charged, more than reserved, but under the $5 cap: nothing past it.
    const month = (await monthOf(org.orgId, "messages-provider"))!;
    expect(month.spent).toBeGreaterThan(3_000_000);
    expect(month).toMatchObject({ reserved: 0, overrun: 0 });
  });
});

// POST /webhooks/billing: the provider's signature checked over the raw body (against the provider's
// own signer), each event once, plans set by subscriptions and never moved backwards by late deliveries.
import { beforeEach, describe, expect, it } from "vitest";
import { billingOn, deliver, ENTERPRISE_PRICE, stripeSignature, subscriptionEvent } from "../support/billing";
import { seedOrganization } from "../support/seed";
import { asRole } from "../support/sql";

let orgId: string;
let subscription: { id: string; customer: string; orgId: string };

beforeEach(async () => {
  orgId = (await seedOrganization("billing")).id;
  const unique = crypto.randomUUID().slice(0, 8);
  subscription = { id: `sub_${unique}`, customer: `cus_${unique}`, orgId };
});

const planOf = async () => asRole("superuser", async (client) => (await client.query("SELECT plan FROM organizations WHERE id = $1", [orgId])).rows[0].plan);
const history = async () =>
  asRole(
    "superuser",
    async (client) => (await client.query("SELECT source, from_plan, to_plan, status, note FROM billing_history WHERE org_id = $1 ORDER BY id", [orgId])).rows,
  );
const audited = async () =>
  asRole(
    "superuser",
    async (client) => (await client.query("SELECT actor_label, data FROM audit_log WHERE org_id = $1 AND action = 'plan.changed' ORDER BY seq", [orgId])).rows,
  );

const send = async (event: object) => {
  const response = await deliver(JSON.stringify(event));
  return { status: response.status, body: (await response.json()) as { outcome?: string; error?: string } };
};

describe("the signature", () => {
  it("accepts the provider's own signature and sets the plan, audited and kept as history", async () => {
    expect(await send(subscriptionEvent("created", subscription))).toMatchObject({ status: 200, body: { outcome: "applied" } });
    expect(await planOf()).toBe("team");
    expect(await history()).toEqual([expect.objectContaining({ source: "provider", from_plan: "free", to_plan: "team", status: "active" })]);
    expect(await audited()).toEqual([
      expect.objectContaining({ actor_label: "billing provider", data: expect.objectContaining({ from: "free", to: "team" }) }),
    ]);
  });

  it("refuses with 401, never 500, every malformed, missing or wrong signature, and a body altered by one byte", async () => {
    const body = JSON.stringify(subscriptionEvent("created", subscription));
    const good = await stripeSignature(body);
    const t = good.split(",")[0]!;
    const hex = good.split("v1=")[1]!;
    const altered = body.replace('"active"', '"activf"');
    for (const [signature, payload] of [
      [null, body],
      ["", body],
      ["garbage", body],
      [`${t}`, body],
      [`v1=${hex}`, body],
      [`t=abc,v1=${hex}`, body],
      [`${t},v1=${hex.slice(2)}`, body],
      [`${t},v1=${hex}zz`, body],
      [`${t},${t},v1=${hex}`, body],
      [`${t},v1=${"0".repeat(64)}`, body],
      [good, altered],
    ] as Array<[string | null, string]>) {
      const response = await deliver(payload, { signature });
      expect({ signature, status: response.status }).toEqual({ signature, status: 401 });
      expect(response.headers.get("x-svc-error-code")).toBe("signature_invalid");
      expect(Object.keys((await response.json()) as object)).toEqual(["error"]);
    }
    expect(await planOf()).toBe("free");
  });

  it("refuses a timestamp more than five minutes old or ahead, and takes one inside the window", async () => {
    const body = JSON.stringify(subscriptionEvent("created", subscription));
    const now = Math.floor(Date.now() / 1000);
    for (const timestamp of [now - 301, now + 301]) {
      expect((await deliver(body, { signature: await stripeSignature(body, { timestamp }) })).status).toBe(401);
    }
    expect((await deliver(body, { signature: await stripeSignature(body, { timestamp: now - 240 }) })).status).toBe(200);
  });

  it("accepts any matching v1 while the secret rotates", async () => {
    const body = JSON.stringify(subscriptionEvent("created", subscription));
    const timestamp = Math.floor(Date.now() / 1000);
    const old = (await stripeSignature(body, { secret: "whsec_the_old_one", timestamp })).split("v1=")[1];
    const current = (await stripeSignature(body, { timestamp })).split("v1=")[1];
    expect((await deliver(body, { signature: `t=${timestamp},v1=${old},v1=${current}` })).status).toBe(200);
    expect(await planOf()).toBe("team");
  });

  it("refuses more than 4 v1 signatures with 401 before hashing, even with the right one among them; takes it among 4", async () => {
    const body = JSON.stringify(subscriptionEvent("created", subscription));
    const timestamp = Math.floor(Date.now() / 1000);
    const right = (await stripeSignature(body, { timestamp })).split("v1=")[1]!;
    const others = ["1", "2", "3", "4"].map((digit) => digit.repeat(64));
    const five = await deliver(body, { signature: `t=${timestamp},${[...others, right].map((hex) => `v1=${hex}`).join(",")}` });
    expect(five.status).toBe(401);
    expect(((await five.json()) as { error: string }).error).toMatch(/more than 4 v1 signatures/);
    expect(await planOf()).toBe("free");
    const four = await deliver(body, { signature: `t=${timestamp},${[...others.slice(1), right].map((hex) => `v1=${hex}`).join(",")}` });
    expect(four.status).toBe(200);
    expect(await planOf()).toBe("team");
  });

  it("refuses a body over 1 MiB with 413 before hashing it, even when it is correctly signed", async () => {
    const event = subscriptionEvent("created", subscription);
    const body = JSON.stringify({ ...event, padding: "x".repeat(1024 * 1024) });
    const response = await deliver(body);
    expect(response.status).toBe(413);
    expect(response.headers.get("x-svc-error-code")).toBe("payload_too_large");
    expect(await planOf()).toBe("free");
    // A badly signed header is judged first: 401, the body never read.
    expect((await deliver(body, { signature: "garbage" })).status).toBe(401);
  });

  it("answers 503 when billing is off (no webhook secret)", async () => {
    const body = JSON.stringify(subscriptionEvent("created", subscription));
    const response = await deliver(body, {
      env: billingOn({
        SVC_BILLING_WEBHOOK_SECRET: undefined,
        SVC_BILLING_SECRET_KEY: undefined,
        SVC_BILLING_PRICE_TEAM: undefined,
        SVC_BILLING_PRICE_ENTERPRISE: undefined,
      }),
    });
    expect(response.status).toBe(503);
  });
});

describe("what deliveries do", () => {
  it("handles each event once: a redelivery answers 200 and changes nothing", async () => {
    const event = subscriptionEvent("created", subscription);
    expect((await send(event)).body.outcome).toBe("applied");
    expect(await send(event)).toMatchObject({ status: 200, body: { outcome: "duplicate" } });
    expect(await history()).toHaveLength(1);
  });

  it("never moves the plan backwards: a late 'active' after the cancellation changes nothing", async () => {
    const start = Math.floor(Date.now() / 1000) - 60;
    await send(subscriptionEvent("created", subscription, start));
    await send(subscriptionEvent("deleted", { ...subscription, status: "canceled" }, start + 20));
    expect(await planOf()).toBe("free");
    // Delivered late: older than what is stored.
    expect((await send(subscriptionEvent("updated", subscription, start + 10))).body.outcome).toBe("stale");
    // Stamped the same second as the cancellation, but not further along: still nothing.
    expect((await send(subscriptionEvent("updated", subscription, start + 20))).body.outcome).toBe("stale");
    expect(await planOf()).toBe("free");
  });

  it("keeps the plan until the period ends when cancelled at period end, then returns to free", async () => {
    const start = Math.floor(Date.now() / 1000) - 60;
    await send(subscriptionEvent("created", { ...subscription, price: ENTERPRISE_PRICE }, start));
    expect(await planOf()).toBe("enterprise");
    await send(subscriptionEvent("updated", { ...subscription, price: ENTERPRISE_PRICE, cancelAtPeriodEnd: true }, start + 1));
    expect(await planOf()).toBe("enterprise");
    await send(subscriptionEvent("deleted", { ...subscription, price: ENTERPRISE_PRICE, status: "canceled" }, start + 2));
    expect(await planOf()).toBe("free");
    expect((await history()).map((row) => row.to_plan)).toEqual(["enterprise", "free"]);
  });

  it("records a subscription for another price and changes nothing", async () => {
    expect((await send(subscriptionEvent("created", { ...subscription, price: "price_something_else" }))).body.outcome).toBe("applied");
    expect(await planOf()).toBe("free");
    const stored = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT price_id, status FROM subscriptions WHERE org_id = $1", [orgId])).rows,
    );
    expect(stored).toEqual([{ price_id: "price_something_else", status: "active" }]);
    expect(await history()).toEqual([expect.objectContaining({ from_plan: "free", to_plan: "free", note: expect.stringMatching(/not a plan's/) })]);
    expect(await audited()).toEqual([]);
  });

  it("ignores (and answers 200 to) an event for a customer it cannot place, and events it does not act on", async () => {
    const stranger = subscriptionEvent("created", { id: "sub_stranger", customer: `cus_${crypto.randomUUID()}` });
    expect(await send(stranger)).toMatchObject({ status: 200, body: { outcome: "ignored" } });
    expect(await send({ id: `evt_${crypto.randomUUID()}`, object: "event", type: "invoice.paid", created: 1, data: { object: {} } })).toMatchObject({
      status: 200,
      body: { outcome: "ignored" },
    });
  });

  it("refuses a signed body that is not an event with 400, never 500", async () => {
    for (const body of ["{", "[]", JSON.stringify({ id: "evt_x", type: "customer.subscription.created", created: 1, data: { object: { id: "sub" } } })]) {
      expect((await deliver(body)).status).toBe(400);
    }
  });
});

// subscriptions.checkout, billing.portal, billing.get and billing.set, against the fake provider: what
// reaches the provider (its record proves it), and what is refused before any provider call.
import { beforeEach, describe, expect, it } from "vitest";
import { billingOn, deliver, fakeBilling, TEAM_PRICE } from "../support/billing";
import { callWith } from "../support/http";
import { rpcGet } from "../support/rpc";
import { seedOrganization } from "../support/seed";
import { browser, seedPerson, seedSession } from "../support/sessions";
import { asRole } from "../support/sql";

let orgId: string;
let session: string;
let csrf: string;

beforeEach(async () => {
  orgId = (await seedOrganization("checkout")).id;
  session = await seedSession(await seedPerson(`billing-owner-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "owner" }]));
  csrf = await browser(session).csrf();
});

async function rpc(env: Record<string, string>, name: string, input: unknown, method: "GET" | "POST" = "POST") {
  const headers = { cookie: `svc_session=${session}`, "x-svc-csrf": csrf };
  const response =
    method === "POST"
      ? await callWith(env, `/rpc/${name}`, { method, json: input, headers })
      : await callWith(env, `/rpc/${name}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers });
  const body = (await response.json()) as { result?: { data: Record<string, unknown> }; error?: { message: string } };
  return { status: response.status, data: body.result?.data, message: body.error?.message };
}

const checkoutsOf = async () =>
  ((await (await fakeBilling("/_fake/requests")).json()) as Array<{ path: string; authorization: string; form: Record<string, string> }>).filter(
    (request) => request.path === "/v1/checkout/sessions" && request.form.client_reference_id === orgId,
  );

describe("checkout", () => {
  it("starts a checkout for the team plan at the provider and answers its address; completing it sets the plan", async () => {
    const started = await rpc(billingOn(), "subscriptions.checkout", { orgId, plan: "team" });
    expect(started).toMatchObject({ status: 200, data: { url: expect.stringMatching(/\/_fake\/checkout\/cs_/) } });
    const [request] = await checkoutsOf();
    expect(request).toMatchObject({
      authorization: "Bearer sk_test_billing",
      form: expect.objectContaining({
        mode: "subscription",
        "line_items[0][price]": TEAM_PRICE,
        "metadata[org_id]": orgId,
        "subscription_data[metadata][org_id]": orgId,
      }),
    });

    // The person pays; the provider's events reach the Worker.
    const sessionId = (started.data!.url as string).split("/").pop()!;
    expect((await fakeBilling(`/_fake/checkout/${sessionId}/complete`, { method: "POST" })).status).toBe(200);
    const events = (
      (await (await fakeBilling("/_fake/events")).json()) as Array<{
        data: { object: { id: string; subscription?: string; metadata?: Record<string, string> } };
      }>
    ).filter((event) => event.data.object.id === sessionId || event.data.object.metadata?.org_id === orgId);
    for (const event of events) expect((await deliver(JSON.stringify(event))).status).toBe(200);

    const billing = await rpc(billingOn(), "billing.get", { orgId }, "GET");
    expect(billing.data).toMatchObject({
      plan: "team",
      hasCustomer: true,
      subscriptions: [expect.objectContaining({ status: "active", priceId: TEAM_PRICE })],
    });
    const portal = await rpc(billingOn(), "billing.portal", { orgId });
    expect(portal).toMatchObject({ status: 200, data: { url: expect.stringMatching(/\/_fake\/portal\//) } });
  });

  it("refuses enterprise checkout with no enterprise price before any provider call, with a sentence", async () => {
    const refused = await rpc(billingOn({ SVC_BILLING_PRICE_ENTERPRISE: undefined }), "subscriptions.checkout", { orgId, plan: "enterprise" });
    expect(refused).toMatchObject({ status: 412, message: expect.stringMatching(/agreed with a person/) });
    expect(await checkoutsOf()).toEqual([]);
  });

  it("refuses checkout and the portal while billing is off, naming what is missing", async () => {
    for (const name of ["subscriptions.checkout", "billing.portal"]) {
      const refused = await rpc({}, name, name === "billing.portal" ? { orgId } : { orgId, plan: "team" });
      expect(refused).toMatchObject({ status: 412, message: expect.stringMatching(/SVC_BILLING_SECRET_KEY/) });
    }
    expect(await checkoutsOf()).toEqual([]);
  });

  it("refuses checkout cleanly when the provider answers nothing: 502 billing_refused once its 10-second deadline passes", async () => {
    await fakeBilling("/_fake/refusals", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ path: "/v1/checkout/sessions", silent: true, orgId }),
    });
    try {
      const started = Date.now();
      const refused = await rpc(billingOn(), "subscriptions.checkout", { orgId, plan: "team" });
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(refused).toMatchObject({ status: 502, message: expect.stringMatching(/could not be reached.*Nothing was started/) });
    } finally {
      await fakeBilling("/_fake/refusals?path=/v1/checkout/sessions", { method: "DELETE" });
    }
  }, 20_000);

  it("passes on the provider's refusal as a sentence", async () => {
    await fakeBilling("/_fake/refusals", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ path: "/v1/billing_portal/sessions", status: 400, message: "No such customer" }),
    });
    await asRole("superuser", (client) =>
      client.query("INSERT INTO billing_customers (org_id, customer_id) VALUES ($1, $2)", [orgId, `cus_${crypto.randomUUID()}`]),
    );
    expect(await rpc(billingOn(), "billing.portal", { orgId })).toMatchObject({ status: 502, message: expect.stringMatching(/No such customer/) });
  });
});

describe("billing.set", () => {
  it("is refused unless SVC_OPERATOR_SETS_PLAN is 1, whether or not billing is configured", async () => {
    for (const env of [{}, billingOn()]) {
      expect(await rpc(env, "billing.set", { orgId, plan: "enterprise" })).toMatchObject({
        status: 412,
        message: expect.stringMatching(/SVC_OPERATOR_SETS_PLAN/),
      });
    }
    expect(
      ((await rpcGet(session, "organization.get", { orgId }).then((response) => response.json())) as { result: { data: { plan: string } } }).result.data.plan,
    ).toBe("free");
  });

  it("sets the plan where the operator decides plans, audited and kept as history", async () => {
    expect(await rpc({ SVC_OPERATOR_SETS_PLAN: "1" }, "billing.set", { orgId, plan: "enterprise" })).toMatchObject({
      status: 200,
      data: { plan: "enterprise", from: "free", changed: true },
    });
    const rows = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT source, to_plan FROM billing_history WHERE org_id = $1", [orgId])).rows,
    );
    expect(rows).toEqual([{ source: "operator", to_plan: "enterprise" }]);
    await rpc({ SVC_OPERATOR_SETS_PLAN: "1" }, "billing.set", { orgId, plan: "team" });
    // billing.history: newest first, a page at a time.
    const first = await rpc({}, "billing.history", { orgId, limit: 1 }, "GET");
    expect(first.data).toMatchObject({ items: [{ source: "operator", from: "enterprise", to: "team" }], nextCursor: expect.any(String) });
    const second = await rpc({}, "billing.history", { orgId, limit: 1, cursor: (first.data as { nextCursor: string }).nextCursor }, "GET");
    expect(second.data).toEqual({ items: [expect.objectContaining({ from: "free", to: "enterprise" })], nextCursor: null });
  });
});

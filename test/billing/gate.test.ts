// The required-plan gate (SVC_HOSTED_REQUIRED_PLAN=enterprise): every procedure (its meta) and every
// route (planGate) declares which side it is on; what the router and the app declare is walked here
// whole, with a 402 in the spec's shapes for the gated side.
import { describe, expect, it } from "vitest";
import { createApp } from "../../worker/app";
import { declaredSide } from "../../worker/http/plan-gate";
import { billingOn } from "../support/billing";
import { makeEvent } from "../support/events";
import { callWith } from "../support/http";
import { PROCEDURES, probeInput } from "../support/procedures";
import { seedOrganization, seedToken } from "../support/seed";
import { browser, seedPerson, seedSession } from "../support/sessions";
import { asRole } from "../support/sql";

const GATE_ON = () => billingOn({ SVC_HOSTED_REQUIRED_PLAN: "enterprise" });

describe("the declarations", () => {
  it("give every procedure and every route a side", () => {
    expect(PROCEDURES.filter(([, procedure]) => !procedure._def.meta?.gate).map(([name]) => name)).toEqual([]);
    // Each route's handlers, the app-wide middleware (`app.use`: ALL /*) aside.
    const routes = createApp().routes.filter((route) => !(route.method === "ALL" && route.path === "/*"));
    const declared = new Set(routes.filter((route) => declaredSide(route.handler)).map((route) => `${route.method} ${route.path}`));
    expect([...new Set(routes.map((route) => `${route.method} ${route.path}`))].filter((route) => !declared.has(route))).toEqual([]);
  });
});

async function owner(plan: "free" | "enterprise", role: "owner" | "member" = "owner") {
  const orgId = (await seedOrganization("gate")).id;
  if (plan !== "free") await asRole("superuser", (client) => client.query("UPDATE organizations SET plan = $2 WHERE id = $1", [orgId, plan]));
  const session = await seedSession(await seedPerson(`gate-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role }]));
  return { orgId, session, csrf: await browser(session).csrf() };
}

async function call(env: Record<string, string>, who: Awaited<ReturnType<typeof owner>>, name: string, given?: unknown) {
  const [, procedure] = PROCEDURES.find(([candidate]) => candidate === name)!;
  const input = given ?? probeInput(procedure, who.orgId);
  const headers = { cookie: `svc_session=${who.session}`, "x-svc-csrf": who.csrf };
  return procedure._def.type === "query"
    ? callWith(env, `/rpc/${name}${input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`}`, { headers })
    : callWith(env, `/rpc/${name}`, { method: "POST", json: input, headers });
}

describe("with the gate on", () => {
  it("refuses every gated procedure with 402 naming the plan, and lets the exits through", async () => {
    const who = await owner("free");
    for (const [name, procedure] of PROCEDURES) {
      const response = await call(GATE_ON(), who, name);
      if (procedure._def.meta!.gate === "gated") {
        expect({ name, status: response.status }).toEqual({ name, status: 402 });
        const body = (await response.json()) as { error: { message: string; data: { code: string; httpStatus: number } } };
        expect(body.error).toMatchObject({ message: expect.stringMatching(/needs the enterprise plan/), data: { code: "PAYMENT_REQUIRED", httpStatus: 402 } });
      } else {
        expect({ name, status: response.status === 402 }).toEqual({ name, status: false });
      }
    }
    // Closing the account, which the walk's probe leaves alone (it names no organization): a member,
    // since the last owner may not close their account, gate or not.
    expect((await call(GATE_ON(), await owner("free", "member"), "account.close", { confirm: "close" })).status).toBe(200);
  });

  it("lets an organization on the enterprise plan through, and changes nothing when the gate is off", async () => {
    const enterprise = await owner("enterprise");
    expect((await call(GATE_ON(), enterprise, "environments.list")).status).toBe(200);
    expect((await call(billingOn(), await owner("free"), "environments.list")).status).toBe(200);
  });

  it("refuses engine ingestion and the repository claim routes with a 402 Refusal, and keeps engine work and commands reachable", async () => {
    const { orgId } = await owner("free");
    const engine = (await seedToken(orgId, "engine")).token;
    const cli = (await seedToken(orgId, "cli", ["tokens.manage"])).token;
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    const ingest = await callWith(GATE_ON(), "/v1/events", { method: "POST", json: { events: [makeEvent()] }, headers: bearer(engine) });
    expect(ingest.status).toBe(402);
    expect(ingest.headers.get("x-svc-error-code")).toBe("plan_required");
    expect(await ingest.json()).toEqual({ error: expect.stringMatching(/needs the enterprise plan/) });
    const stored = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT count(*)::int AS n FROM events WHERE org_id = $1", [orgId])).rows[0].n,
    );
    expect(stored).toBe(0);
    expect((await callWith(GATE_ON(), "/v1/oidc/bindings", { headers: bearer(cli) })).status).toBe(402);
    expect((await callWith(GATE_ON(), "/v1/commands/claim", { method: "POST", json: {}, headers: bearer(engine) })).status).toBe(200);
  });
});

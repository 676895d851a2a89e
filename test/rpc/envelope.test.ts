// The wire: tRPC's result and failure envelopes, methods, batching, with the unmodified client.
import { TRPCClientError } from "@trpc/client";
import { beforeEach, describe, expect, it } from "vitest";
import { call } from "../support/http";
import { rpcClient, rpcGet, rpcPost } from "../support/rpc";
import { seedOrganization } from "../support/seed";
import { browser, seedPerson, seedSession } from "../support/sessions";

let orgId: string;
let session: string;

beforeEach(async () => {
  orgId = (await seedOrganization("rpc")).id;
  session = await seedSession(await seedPerson(`rpc-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "admin" }]));
});

describe("the RPC envelope", () => {
  it("answers a query with { result: { data } }", async () => {
    const response = await rpcGet(session, "organization.get", { orgId });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ result: { data: expect.objectContaining({ id: orgId, role: "admin" }) } });
  });

  it("answers failures with message, JSON-RPC code and data { code, httpStatus, path }, never a stack", async () => {
    const response = await rpcGet(null, "organization.get", { orgId });
    expect(response.status).toBe(401);
    const body = (await response.json()) as { error: { message: string; code: number; data: Record<string, unknown> } };
    expect(body.error).toMatchObject({ message: expect.any(String), code: -32001, data: { code: "UNAUTHORIZED", httpStatus: 401, path: "organization.get" } });
    expect(body.error.data).not.toHaveProperty("stack");
  });

  it("answers 400 to input that fails validation", async () => {
    const response = await rpcGet(session, "organization.get", { orgId: "not-a-uuid" });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { data: { code: string } } }).error.data.code).toBe("BAD_REQUEST");
  });

  it("answers 405 to a mutation by GET and a query by POST", async () => {
    expect((await rpcGet(session, "organization.settings", { orgId, name: "x" })).status).toBe(405);
    expect((await rpcPost(session, "organization.get", { orgId }, await browser(session).csrf())).status).toBe(405);
  });

  it("refuses a mutation without the CSRF header, and a body that is not JSON", async () => {
    const missing = await rpcPost(session, "organization.settings", { orgId, name: "Renamed" });
    expect(missing.status).toBe(403);
    const form = await call("/rpc/organization.settings", {
      method: "POST",
      body: "orgId=x",
      headers: { cookie: `svc_session=${session}`, "content-type": "application/x-www-form-urlencoded", "x-svc-csrf": await browser(session).csrf() },
    });
    expect(form.status).toBe(400);
  });

  it("answers another organization exactly like a missing one", async () => {
    const other = (await seedOrganization("rpc-other")).id;
    const theirs = await rpcGet(session, "organization.get", { orgId: other });
    const missing = await rpcGet(session, "organization.get", { orgId: crypto.randomUUID() });
    expect(theirs.status).toBe(404);
    expect(await theirs.json()).toEqual(await missing.json());
  });
});

describe("the unmodified @trpc/client", () => {
  it("calls queries and mutations, batched", async () => {
    const client = await rpcClient(session);
    const [organization, context] = await Promise.all([client.organization.get.query({ orgId }), client.account.context.query()]);
    expect(organization.id).toBe(orgId);
    expect(context.organizations.map((org) => org.id)).toContain(orgId);
    expect(await client.organization.settings.mutate({ orgId, name: "Renamed by RPC" })).toEqual({ name: "Renamed by RPC" });
    expect((await client.organization.get.query({ orgId })).name).toBe("Renamed by RPC");
  });

  it("surfaces failures as TRPCClientError with the readable code", async () => {
    const client = await rpcClient(null, { batch: false });
    const failure = await client.organization.get.query({ orgId }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TRPCClientError);
    expect((failure as TRPCClientError<never>).data).toMatchObject({ code: "UNAUTHORIZED", httpStatus: 401 });
  });
});

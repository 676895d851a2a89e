// The wire: tRPC's result and failure envelopes, methods, batching, with the unmodified client.
import { TRPCClientError } from "@trpc/client";
import { beforeEach, describe, expect, it } from "vitest";
import { call } from "../support/http";
import { rpcClient, rpcGet, rpcPost } from "../support/rpc";
import { seedOrganization } from "../support/seed";
import { browser, seedPerson, seedSession } from "../support/sessions";
import { MAX_BATCH_CALLS } from "../../worker/rpc/routes";
import { statusAndCode } from "../support/refusals";

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

  it("refuses a mutation without the CSRF header, and a body that is not JSON with 415 as tRPC does", async () => {
    const missing = await rpcPost(session, "organization.settings", { orgId, name: "Renamed" });
    expect(statusAndCode(missing)).toEqual([403, "csrf_failed"]);
    const headers = { cookie: `svc_session=${session}`, "x-svc-csrf": await browser(session).csrf() };
    const post = (body: BodyInit, contentType: string) =>
      call("/rpc/organization.settings", { method: "POST", body, headers: { ...headers, "content-type": contentType } });
    const form = new FormData();
    form.set("orgId", orgId);
    form.set("name", "Renamed by form");
    // Types tRPC's adapter would read (forms, binary) and one it refuses itself: none reaches a procedure.
    const refusals = [
      await post("orgId=x", "application/x-www-form-urlencoded"),
      await post(form, "multipart/form-data; boundary=x"),
      await post(new Uint8Array([1, 2]), "application/octet-stream"),
      await post("{}", "text/plain"),
    ];
    expect(refusals.map((response) => response.status)).toEqual([415, 415, 415, 415]);
    for (const response of refusals) expect(((await response.json()) as { error: { data: { code: string } } }).error.data.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(((await (await rpcGet(session, "organization.get", { orgId })).json()) as { result: { data: { name: string } } }).result.data.name).not.toBe(
      "Renamed by form",
    );
  });

  it("answers input that is not JSON with 400 naming the procedure, by GET and by POST, and changes nothing", async () => {
    const organizationName = async () =>
      ((await (await rpcGet(session, "organization.get", { orgId })).json()) as { result: { data: { name: string } } }).result.data.name;
    const before = await organizationName();
    const cookie = `svc_session=${session}`;
    const byGet = await call("/rpc/organization.get?input=%7Bnot-json", { headers: { cookie } });
    const byPost = await call("/rpc/organization.settings", {
      method: "POST",
      body: "{not-json",
      headers: { cookie, "content-type": "application/json", "x-svc-csrf": await browser(session).csrf() },
    });
    for (const [response, path] of [
      [byGet, "organization.get"],
      [byPost, "organization.settings"],
    ] as const) {
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: { message: "The input is not JSON.", code: -32600, data: { code: "BAD_REQUEST", httpStatus: 400, path, errorCode: "invalid_json" } },
      });
    }
    expect(await organizationName()).toBe(before);
  });

  it("answers a mutation body that is not UTF-8 with 400 naming the procedure, and changes nothing", async () => {
    const response = await call("/rpc/organization.settings", {
      method: "POST",
      body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
      headers: { cookie: `svc_session=${session}`, "content-type": "application/json", "x-svc-csrf": await browser(session).csrf() },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        message: "The body is not UTF-8 text, so it is not JSON.",
        code: -32600,
        data: { code: "BAD_REQUEST", httpStatus: 400, path: "organization.settings", errorCode: "invalid_json" },
      },
    });
  });

  it("carries each failure's catalog code as data.errorCode, and for a call not batched in x-svc-error-code", async () => {
    const single = await rpcGet(null, "organization.get", { orgId });
    expect(single.headers.get("x-svc-error-code")).toBe("unauthenticated");
    expect(((await single.json()) as { error: { data: { errorCode: string } } }).error.data.errorCode).toBe("unauthenticated");
    const inputs = encodeURIComponent(JSON.stringify({ 0: { orgId: "not-a-uuid" }, 1: { orgId: crypto.randomUUID() } }));
    const batch = await call(`/rpc/organization.get,organization.get?batch=1&input=${inputs}`, { headers: { cookie: `svc_session=${session}` } });
    expect(batch.headers.get("x-svc-error-code")).toBeNull();
    expect(((await batch.json()) as Array<{ error: { data: { errorCode: string } } }>).map((outcome) => outcome.error.data.errorCode)).toEqual([
      "invalid_request",
      "not_found",
    ]);
  });

  it("is the one place a tRPC error is made: everything else throws a Refusal, whose code the catalog must hold", () => {
    const sources = import.meta.glob(["../../worker/**/*.ts", "../../durable-objects/**/*.ts"], { query: "?raw", import: "default", eager: true }) as Record<
      string,
      string
    >;
    expect(Object.keys(sources).length).toBeGreaterThan(100);
    const makers = Object.entries(sources)
      .filter(([file, text]) => /new TRPCError\b/.test(text) && !file.endsWith("/worker/trpc/errors.ts"))
      .map(([file]) => file);
    expect(makers).toEqual([]);
  });

  it("answers a batch call by call, in order, with 207 when their statuses differ", async () => {
    const cookie = `svc_session=${session}`;
    const inputs = encodeURIComponent(JSON.stringify({ 0: { orgId }, 1: { orgId: "not-a-uuid" } }));
    const mixed = await call(`/rpc/organization.get,organization.get,no.such?batch=1&input=${inputs}`, { headers: { cookie } });
    expect(mixed.status).toBe(207);
    expect(
      ((await mixed.json()) as Array<Record<string, { data: { code?: string } }>>).map((outcome) => (outcome.result ? "ok" : outcome.error!.data.code)),
    ).toEqual(["ok", "BAD_REQUEST", "NOT_FOUND"]);
    const same = await call(`/rpc/organization.get,account.context?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: { orgId } }))}`, {
      headers: { cookie },
    });
    expect(same.status).toBe(200);
  });

  it("refuses a batch that mixes queries and mutations, a batch input that is not an object, a streamed call that is no batch, and a batch of too many calls", async () => {
    const cookie = `svc_session=${session}`;
    const refusals = [
      await call(`/rpc/organization.get,organization.settings?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: { orgId } }))}`, { headers: { cookie } }),
      await call(`/rpc/organization.get?batch=1&input=5`, { headers: { cookie } }),
      await call(`/rpc/organization.get?input=${encodeURIComponent(JSON.stringify({ orgId }))}`, { headers: { cookie, "trpc-accept": "application/jsonl" } }),
      await call(
        `/rpc/${Array(MAX_BATCH_CALLS + 1)
          .fill("account.context")
          .join(",")}?batch=1`,
        { headers: { cookie } },
      ),
    ];
    expect(refusals.map((response) => response.status)).toEqual([400, 400, 400, 400]);
    const messages = await Promise.all(refusals.map(async (response) => JSON.stringify(await response.json())));
    // tRPC's own sentences.
    expect(messages[0]).toContain("Cannot mix procedure types");
    expect(messages[1]).toContain("needs to be an object when doing a batch call");
    expect(messages[2]).toContain("must be batched");
    expect(messages[3]).toContain("Batch call exceeds maximum size");
    const most = await call(`/rpc/${Array(MAX_BATCH_CALLS).fill("account.context").join(",")}?batch=1`, { headers: { cookie } });
    expect(most.status).toBe(200);
  });

  for (const [header, value] of [
    ["trpc-accept", "application/jsonl"],
    ["accept", "application/jsonl"],
  ] as const) {
    it(`streams a batch as JSON lines when asked with ${header}: ${value}, each call's envelope in tRPC's stream format`, async () => {
      const response = await call(`/rpc/organization.get,no.such?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: { orgId } }))}`, {
        headers: { cookie: `svc_session=${session}`, [header]: value },
      });
      expect(response.status).toBe(200);
      const [head, ...lines] = (await response.text())
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as unknown);
      // The head holds one pending value per call; each is filled by a later line.
      expect(head).toEqual({ 0: [[0], [null, 0, 0]], 1: [[0], [null, 0, 1]] });
      expect(lines.length).toBeGreaterThanOrEqual(2);
      const later = JSON.stringify(lines);
      expect(later).toContain(orgId);
      expect(later).toContain('"code":"NOT_FOUND"');
      expect(later).toContain('"path":"no.such"');
    });
  }

  it("answers another organization exactly like a missing one", async () => {
    const other = (await seedOrganization("rpc-other")).id;
    const theirs = await rpcGet(session, "organization.get", { orgId: other });
    const missing = await rpcGet(session, "organization.get", { orgId: crypto.randomUUID() });
    expect(statusAndCode(theirs)).toEqual([404, "not_found"]);
    expect(await theirs.json()).toEqual(await missing.json());
  });
});

describe("the unmodified @trpc/client", () => {
  const links = {
    httpLink: { batch: false },
    httpBatchLink: {},
    httpBatchStreamLink: { stream: true },
    "httpBatchStreamLink with streamHeader: 'accept'": { stream: "accept" },
  } as const;
  for (const [link, options] of Object.entries(links)) {
    it(`makes a query and a mutation through ${link}`, async () => {
      const client = await rpcClient(session, options);
      const name = `Renamed through ${link}`;
      expect(await client.organization.settings.mutate({ orgId, name })).toEqual({ name });
      const [organization, context] = await Promise.all([client.organization.get.query({ orgId }), client.account.context.query()]);
      expect(organization).toMatchObject({ id: orgId, name });
      expect(context.organizations.map((org) => org.id)).toContain(orgId);
      const failure = await client.organization.get.query({ orgId: crypto.randomUUID() }).catch((error: unknown) => error);
      expect((failure as TRPCClientError<never>).data).toMatchObject({ code: "NOT_FOUND", httpStatus: 404 });
    });
  }

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

// Console procedures given text PostgreSQL could not store, or bodies past the limit: 400 or 413 in
// the RPC failure envelope, and nothing stored.
import { beforeEach, describe, expect, it } from "vitest";
import { streamedBody } from "../support/bodies";
import { call } from "../support/http";
import { rpcPost } from "../support/rpc";
import { seedOrganization } from "../support/seed";
import { browser, seedPerson, seedSession } from "../support/sessions";
import { asRole } from "../support/sql";

let orgId: string;
let session: string;
let csrf: string;

beforeEach(async () => {
  orgId = (await seedOrganization("rpc-text")).id;
  session = await seedSession(await seedPerson(`rpc-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "admin" }]));
  csrf = await browser(session).csrf();
});

const workloads = () =>
  asRole("superuser", async (client) => Number((await client.query("SELECT count(*) FROM workloads WHERE org_id = $1", [orgId])).rows[0].count));

type Failure = { error: { message: string; code: number; data: { code: string; httpStatus: number } } };

describe("workloads.define", () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ["a NUL in its name", { name: "load\u0000", compiled: {} }, /NUL/],
    ["a lone surrogate in its name", { name: "load \ud800", compiled: {} }, /surrogate/],
    ["a NUL in a compiled value", { name: "load", compiled: { steps: ["\u0000"] } }, /NUL/],
    ["a NUL in a compiled key", { name: "load", compiled: { "\u0000": 1 } }, /key/],
    ["a compiled form over 256 KiB", { name: "load", compiled: { blob: "x".repeat(257 * 1024) } }, /262144 bytes/],
  ];
  for (const [what, input, reason] of cases) {
    it(`answers 400 BAD_REQUEST to ${what}, defining nothing`, async () => {
      const response = await rpcPost(session, "workloads.define", { orgId, ...input }, csrf);
      expect(response.status).toBe(400);
      const body = (await response.json()) as Failure;
      expect(body.error).toMatchObject({ data: { code: "BAD_REQUEST", httpStatus: 400 } });
      expect(body.error.message).toMatch(reason);
      expect(await workloads()).toBe(0);
    });
  }

  it("defines a workload at the limits", async () => {
    const response = await rpcPost(
      session,
      "workloads.define",
      { orgId, name: "n".repeat(100), compiled: { blob: "x".repeat(200 * 1024), emoji: "🚀" } },
      csrf,
    );
    expect(response.status).toBe(200);
    expect(await workloads()).toBe(1);
  });
});

describe("the RPC body limit", () => {
  it("answers 413 PAYLOAD_TOO_LARGE in the RPC envelope to a body over 1 MiB", async () => {
    const response = await rpcPost(session, "workloads.define", { orgId, name: "big", compiled: { blob: "x".repeat(1024 * 1024) } }, csrf);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      error: {
        message: expect.stringMatching(/1 MiB/),
        code: -32013, // tRPC's code for PAYLOAD_TOO_LARGE
        data: { code: "PAYLOAD_TOO_LARGE", httpStatus: 413, path: "workloads.define", errorCode: "payload_too_large" },
      },
    });
    expect(await workloads()).toBe(0);
  });

  it("answers a chunked body over the limit with 413 too", async () => {
    const response = await call("/rpc/workloads.define", {
      method: "POST",
      body: streamedBody(2 * 1024 * 1024),
      headers: { cookie: `svc_session=${session}`, "x-svc-csrf": csrf, "content-type": "application/json" },
    });
    expect(response.status).toBe(413);
  });
});

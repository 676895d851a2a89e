// /rpc failures: an unexpected one is diagnosable from its log line (which carries nothing of the
// input) and answered with a sentence; invalid input is answered with a sentence naming the field.
import { describe, expect, it } from "vitest";
import { captureLogs } from "../support/logs";
import { expectDiagnosableLine, whileTokenNamesRefused } from "../support/refused-insert";
import { rpcGet, rpcPost } from "../support/rpc";
import { seedOrganization } from "../support/seed";
import { browser, seedPerson, seedSession } from "../support/sessions";

interface RpcFailure {
  error: { message: string; data: { code: string; httpStatus: number } };
}

async function signedInAdmin() {
  const orgId = (await seedOrganization("rpc-failures")).id;
  const session = await seedSession(await seedPerson(`rpc-f-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "admin" }]));
  return { orgId, session };
}

describe("a failed procedure", () => {
  it("logs the request id, procedure, error class, SQLSTATE, constraint and our frames; never the input, token or row", async () => {
    const { orgId, session } = await signedInAdmin();
    const csrf = await browser(session).csrf();
    const marker = `marker-${crypto.randomUUID().slice(0, 8)}`;
    let response: Response | undefined;
    let constraint = "";
    const logs = await captureLogs(() =>
      whileTokenNamesRefused(marker, async (refusing) => {
        constraint = refusing;
        response = await rpcPost(session, "tokens.create", { orgId, name: `runner ${marker}` }, csrf);
      }),
    );
    expect(response!.status).toBe(500);
    const requestId = response!.headers.get("x-request-id");
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const body = (await response!.json()) as RpcFailure;
    expect(body.error.message).toBe("Something went wrong on our side. Try again; if it keeps happening, report the requestId to support.");
    expectDiagnosableLine(logs, "rpc.failed", { requestId, procedure: "tokens.create", code: "internal_error", constraint }, marker);
    expect(logs.text).not.toContain(session);
  });
});

describe("input that fails validation", () => {
  it("is answered with a sentence naming the field, not the validator's JSON", async () => {
    const { session } = await signedInAdmin();
    const response = await rpcGet(session, "organization.get", { orgId: "not-a-uuid" });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as RpcFailure;
    expect(error.data.code).toBe("BAD_REQUEST");
    expect(error.message).toMatch(/^The input is not valid: `orgId`: .+\.$/);
    expect(error.message).not.toContain("[");
    // The field itself, for a form to mark the one it is about.
    expect((error.data as { field?: string }).field).toBe("orgId");
  });
});

describe("every /rpc answer", () => {
  it("carries x-request-id, like every other route's", async () => {
    const { orgId, session } = await signedInAdmin();
    for (const response of [await rpcGet(session, "organization.get", { orgId }), await rpcGet(null, "organization.get", { orgId })]) {
      expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});

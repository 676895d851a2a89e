import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../worker/index";
import { BASE, call } from "../support/http";

describe("GET /health", () => {
  it("answers 200 { ok: true } with a request id", async () => {
    const response = await call("/health");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("does not touch the database: it answers while the database is unreachable", async () => {
    const ctx = createExecutionContext();
    const response = await worker.fetch(new Request(`${BASE}/health`), { ...env, SVC_DATABASE_URL: "postgres://svc_app:x@127.0.0.1:1/svc" }, ctx);
    await waitOnExecutionContext(ctx);
    expect(response.status).toBe(200);
  });
});

describe("GET /readyz", () => {
  it("answers 200 Readiness with the configured version and commit", async () => {
    const response = await call("/readyz");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ready: true, version: "test-version", commit: "test-commit" });
  });

  it("answers 503 with a reason when the database does not answer", async () => {
    const ctx = createExecutionContext();
    const down = { ...env, SVC_DATABASE_URL: "postgres://svc_app:x@127.0.0.1:1/svc" };
    const response = await worker.fetch(new Request(`${BASE}/readyz`), down, ctx);
    await waitOnExecutionContext(ctx);
    expect(response.status).toBe(503);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["commit", "ready", "reason", "version"]);
    expect(body.ready).toBe(false);
    expect(body.reason).toMatch(/database/i);
  });
});

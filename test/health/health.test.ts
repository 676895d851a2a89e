import { describe, expect, it } from "vitest";
import { call, callWith, UNREACHABLE_DATABASE } from "../support/http";

describe("GET /health", () => {
  it("answers 200 { ok: true } with a request id", async () => {
    const response = await call("/health");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("does not touch the database: it answers while the database is unreachable", async () => {
    const response = await callWith(UNREACHABLE_DATABASE, "/health");
    expect(response.status).toBe(200);
  });
});

describe("GET /readyz", () => {
  it("answers 200 Readiness with the configured version and commit (SVC_VERSION, SVC_COMMIT)", async () => {
    const response = await call("/readyz");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ready: true, version: "test-version", commit: "test-commit" });
    const another = await callWith({ SVC_VERSION: "2026.11.28", SVC_COMMIT: "0123abcd" }, "/readyz");
    expect(await another.json()).toEqual({ ready: true, version: "2026.11.28", commit: "0123abcd" });
  });

  it("answers 503 with a reason when the database does not answer", async () => {
    const response = await callWith(UNREACHABLE_DATABASE, "/readyz");
    expect(response.status).toBe(503);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["commit", "ready", "reason", "version"]);
    expect(body.ready).toBe(false);
    expect(body.reason).toMatch(/database/i);
  });
});

// How every route reads a body: JSON by its content type (400 otherwise, the spec's "body not JSON"),
// UTF-8, and bounded: 413 before the body is read whole, declared or chunked.
import { beforeEach, describe, expect, it } from "vitest";
import { NOT_UTF8, streamedBody } from "../support/bodies";
import { call } from "../support/http";
import { makeEvent } from "../support/events";
import { seedOrganization, seedToken } from "../support/seed";
import { asRole } from "../support/sql";

let orgId: string;
let engine: string;
let cli: string;

beforeEach(async () => {
  orgId = (await seedOrganization("body")).id;
  engine = (await seedToken(orgId, "engine")).token;
  cli = (await seedToken(orgId, "cli", ["tokens.manage"])).token;
});

const count = (table: string) =>
  asRole("superuser", async (client) => Number((await client.query(`SELECT count(*) FROM ${table} WHERE org_id = $1`, [orgId])).rows[0].count));

/** The three JSON routes of the issue, each with a body that would succeed as JSON. */
const routes = () => [
  { path: "/v1/events", token: engine, body: JSON.stringify({ events: [makeEvent()] }) },
  { path: "/v1/tokens", token: cli, body: JSON.stringify({ name: "ci" }) },
  { path: "/v1/oidc/bindings", token: cli, body: JSON.stringify({ repository: `body-${crypto.randomUUID().slice(0, 8)}/shop` }) },
];

const send = (path: string, token: string, body: BodyInit | null, headers: Record<string, string> = {}) => call(path, { method: "POST", token, body, headers });

describe("JSON routes need a JSON content type", () => {
  it("answer 400 (body not JSON) to text/plain and to no content type, storing nothing", async () => {
    for (const route of routes()) {
      for (const headers of [{ "content-type": "text/plain" }, {}] as Array<Record<string, string>>) {
        const response = await send(route.path, route.token, new TextEncoder().encode(route.body), headers);
        expect(response.status, route.path).toBe(400);
        expect(response.headers.get("x-svc-error-code")).toBe("invalid_json");
        expect(await response.json()).toEqual({ error: expect.stringMatching(/application\/json/) });
      }
    }
    expect(await count("events")).toBe(0);
    expect(await count("repository_claims")).toBe(0);
  });

  it("take application/json with a charset, and other +json types", async () => {
    const body = JSON.stringify({ events: [makeEvent()] });
    expect((await send("/v1/events", engine, body, { "content-type": "application/json; charset=utf-8" })).status).toBe(202);
    expect((await send("/v1/events", engine, JSON.stringify({ events: [makeEvent()] }), { "content-type": "application/vnd.svc+json" })).status).toBe(202);
    expect(await count("events")).toBe(2);
  });

  it("answer 400 to a body that is not UTF-8", async () => {
    const response = await send("/v1/tokens", cli, NOT_UTF8, { "content-type": "application/json" });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: expect.stringMatching(/UTF-8/) });
  });

  it("still let an engine claim commands with no body at all", async () => {
    expect((await call("/v1/commands/claim", { method: "POST", token: engine })).status).toBe(200);
  });
});

describe("every body has a size limit", () => {
  it("answers 413 at once to a declared 10 MB body", async () => {
    for (const route of routes()) {
      const started = Date.now();
      const response = await send(route.path, route.token, new Uint8Array(10_000_000).fill(32), { "content-type": "application/json" });
      expect(response.status, route.path).toBe(413);
      expect(response.headers.get("x-svc-error-code")).toBe("payload_too_large");
      expect(await response.json()).toEqual({ error: expect.stringMatching(/MiB/) });
      expect(Date.now() - started).toBeLessThan(5000);
    }
  });

  it("answers 413 to a chunked body (no declared length) once it passes the limit", async () => {
    const events = await send("/v1/events", engine, streamedBody(6 * 1024 * 1024), { "content-type": "application/json" });
    expect(events.status).toBe(413);
    expect(await events.json()).toEqual({ error: expect.stringMatching(/5 MiB/) });
    const tokens = await send("/v1/tokens", cli, streamedBody(2 * 1024 * 1024), { "content-type": "application/json" });
    expect(tokens.status).toBe(413);
    expect(await tokens.json()).toEqual({ error: expect.stringMatching(/1 MiB/) });
    expect(await count("events")).toBe(0);
  });
});

describe("engine routes refuse text PostgreSQL cannot store", () => {
  it("answers 400 naming the field to a NUL in a workload claim's envId, a repository claim, or an identity token", async () => {
    const cases: Array<[string, string, unknown, RegExp]> = [
      ["/v1/workloads/claim", engine, { envId: "env\u0000" }, /`envId`: must not contain a NUL/],
      ["/v1/oidc/bindings", cli, { repository: "owner/na\u0000me" }, /`repository`/],
      ["/v1/auth/codehost-oidc", "", { token: "a.b.c\u0000" }, /`token`: must not contain a NUL/],
    ];
    for (const [path, token, json, reason] of cases) {
      const response = await call(path, { method: "POST", ...(token ? { token } : {}), json });
      expect(response.status, path).toBe(400);
      expect(await response.json()).toEqual({ error: expect.stringMatching(reason) });
    }
    expect(await count("repository_claims")).toBe(0);
  });
});

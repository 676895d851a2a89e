import { describe, expect, it } from "vitest";
import { call, callWith } from "../support/http";
import { statusAndCode } from "../support/refusals";

describe("HTTP plumbing", () => {
  it("answers an unknown route of its own with a 404 Refusal", async () => {
    // Under an API prefix: every other GET is a console page.
    const response = await call("/v1/no/such/route");
    expect(statusAndCode(response)).toEqual([404, "not_found"]);
    const body = await response.json();
    expect(body).toEqual({ error: expect.any(String) });
    expect(response.headers.get("x-request-id")).toBeTruthy();
  });

  it("answers HEAD like GET, without a body, and the request's work still ends (its database pool is closed)", async () => {
    // callWith waits for the request's waitUntil work: a body nobody reads must not hold it open.
    for (const path of ["/readyz", "/health", "/auth/session", "/rpc/account.context"]) {
      const [head, get] = [await callWith({}, path, { method: "HEAD" }), await callWith({}, path)];
      expect({ path, status: head.status, body: await head.text() }).toEqual({ path, status: path.startsWith("/rpc/") ? 204 : get.status, body: "" });
    }
  });
});

describe("GET /openapi.json", () => {
  it("is OpenAPI 3.1.0, version 1.0.0, MIT, generated from the served routes", async () => {
    const response = await call("/openapi.json");
    expect(response.status).toBe(200);
    const doc = (await response.json()) as {
      openapi: string;
      info: { version: string; license: { name: string } };
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0.0");
    expect(doc.info.license.name).toBe("MIT");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/health",
        "/readyz",
        "/v1/events",
        "/v1/workloads/claim",
        "/v1/workloads/runs/{runId}/heartbeat",
        "/v1/commands/claim",
        "/v1/commands/{id}/ack",
      ]),
    );
    // Routes the spec leaves out of the description.
    expect(doc.paths).not.toHaveProperty("/v1/tokens");
    expect(doc.paths["/readyz"]!.get!.responses).toHaveProperty("503");
    expect(doc.components.schemas).toHaveProperty("Readiness");
    expect(doc.components.schemas).toHaveProperty("Refusal");
    expect(doc.components.schemas).toHaveProperty("ServerFailure");
    expect(doc.paths).not.toHaveProperty("/openapi.json");
  });
});

describe("GET /openapi.json: the console procedures", () => {
  it("lists every customer procedure with its input, queries as GET and mutations as POST", async () => {
    const doc = (await (await call("/openapi.json")).json()) as {
      paths: Record<
        string,
        Record<
          string,
          {
            parameters?: Array<{ name: string; content: Record<string, { schema: { required?: string[] } }> }>;
            requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown>; required?: string[] } }> };
          }
        >
      >;
    };
    expect(doc.paths["/rpc/organization.get"]?.get?.parameters?.[0]?.name).toBe("input");
    const agents = doc.paths["/rpc/agents.run"]?.post?.requestBody?.content["application/json"]?.schema;
    expect(Object.keys(agents!.properties).sort()).toEqual(["envId", "orgId", "workflow", "workflows"]);
    // A field with a default is optional to the caller.
    expect(agents!.required).not.toContain("workflow");
    const procedures = Object.keys(doc.paths).filter((path) => path.startsWith("/rpc/"));
    expect(procedures).toEqual(
      expect.arrayContaining(["/rpc/account.close", "/rpc/members.sync", "/rpc/tokens.create", "/rpc/invitations.accept", "/rpc/workloads.start"]),
    );
    expect(procedures.some((path) => path.startsWith("/rpc/admin."))).toBe(false);
  });
});

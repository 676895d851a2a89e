// The route contract, proven with real requests: /openapi.json publishes exactly the hand-written
// operations the spec lists, each one mounted; every status an operation documents is reached, and
// each answer parses with the schema the document names for that status.
import { beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { createApp } from "../../worker/app";
import { declaredRoutes, hookResponses, honoPath, type ResponseDoc } from "../../worker/openapi/declaration";
import { call } from "../support/http";
import { captureLogs } from "../support/logs";
import { ANSWERS } from "./answers";

/** The spec (Liveness and readiness): what /openapi.json carries besides the console procedures. */
const SPEC_OPERATIONS = [
  "get /health",
  "get /readyz",
  "post /v1/events",
  "post /v1/auth/codehost-oidc",
  "post /v1/workloads/claim",
  "post /v1/workloads/runs/{runId}/heartbeat",
  "post /v1/commands/claim",
  "post /v1/commands/{id}/ack",
  "post /v1/oidc/bindings",
  "get /v1/oidc/bindings",
  "delete /v1/oidc/bindings/{binding}",
  "delete /v1/oidc/bindings/{owner}/{name}",
  // Spec, Other control plane routes: the pull-request check routes (published on purpose).
  "post /v1/pr/callback-token",
  "post /v1/pr/report",
];

interface Documented {
  parameters?: Array<{ name: string; in: string; schema: Record<string, unknown> }>;
  responses: Record<string, { content?: { "application/json": { schema: { $ref?: string } } }; headers?: Record<string, unknown> }>;
}

type Doc = { paths: Record<string, Record<string, Documented>>; components: { schemas: Record<string, unknown> } };

let doc: Doc;
const app = createApp();

beforeAll(async () => {
  doc = (await (await call("/openapi.json")).json()) as Doc;
});

const operation = (key: string): Documented => {
  const [method, path] = key.split(" ") as [string, string];
  return doc.paths[path]![method]!;
};

const handWritten = () =>
  Object.entries(doc.paths)
    .filter(([path]) => !path.startsWith("/rpc/"))
    .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`));

// The zod schemas behind the document's components, by component id: a declared route's response
// schemas are the ones its document entry names.
const named = new Map<string, z.ZodType>(
  declaredRoutes(app).flatMap((route) =>
    Object.values<ResponseDoc>({ ...hookResponses(route), ...route.responses })
      .flatMap((response) => (response.schema ? [response.schema] : []))
      .map((schema): [string, z.ZodType] => [z.globalRegistry.get(schema)!.id!, schema]),
  ),
);

/** The schema /openapi.json names for `status` of `key`. */
function documentedSchema(key: string, status: string): z.ZodType {
  const ref = operation(key).responses[status]?.content?.["application/json"].schema.$ref;
  expect(ref, `${key} ${status} names a component`).toMatch(/^#\/components\/schemas\//);
  const id = ref!.slice("#/components/schemas/".length);
  expect(doc.components.schemas, `${key} ${status}`).toHaveProperty(id);
  return named.get(id)!;
}

describe("/openapi.json and the mounted routes", () => {
  it("publishes exactly the hand-written operations the spec lists", () => {
    expect(handWritten().sort()).toEqual([...SPEC_OPERATIONS].sort());
  });

  it("builds every published operation from a route mounted on the app, and leaves out no mounted published route", () => {
    const mounted = app.routes.map((route) => `${route.method.toLowerCase()} ${route.path}`);
    for (const key of handWritten()) {
      const [method, path] = key.split(" ") as [string, string];
      expect(mounted, key).toContain(`${method} ${honoPath(path)}`);
    }
    const published = declaredRoutes(app)
      .filter((route) => route.published !== false)
      .map((route) => `${route.method} ${route.path}`);
    expect(published.sort()).toEqual(handWritten().sort());
  });

  it("documents path parameters as they are validated", () => {
    const schemaOf = (key: string, name: string) => operation(key).parameters!.find((parameter) => parameter.name === name)!.schema;
    expect(schemaOf("post /v1/workloads/runs/{runId}/heartbeat", "runId")).toMatchObject({ type: "string", format: "uuid" });
    expect(schemaOf("post /v1/commands/{id}/ack", "id")).toMatchObject({ type: "string", format: "uuid" });
    expect(schemaOf("delete /v1/oidc/bindings/{binding}", "binding")).toMatchObject({
      anyOf: [
        { type: "string", format: "uuid" },
        { type: "string", maxLength: 140, pattern: expect.any(String) },
      ],
    });
    for (const name of ["owner", "name"]) {
      expect(schemaOf("delete /v1/oidc/bindings/{owner}/{name}", name)).toMatchObject({
        type: "string",
        minLength: 1,
        maxLength: 100,
        pattern: expect.any(String),
      });
    }
  });

  it("has a real request for every status each operation documents, and none it does not", () => {
    for (const key of SPEC_OPERATIONS) {
      expect(Object.keys(ANSWERS[key] ?? {}).sort(), key).toEqual(Object.keys(operation(key).responses).sort());
    }
  });
});

describe.each(SPEC_OPERATIONS)("%s answers as documented", (key) => {
  it.each(Object.keys(ANSWERS[key]!))("%s", async (status) => {
    let response = new Response();
    let text = "";
    // A 500 is provoked on purpose: its one log line is read here, not printed.
    const logs = await captureLogs(async () => {
      response = await ANSWERS[key]![Number(status)]!();
      text = await response.text();
    });
    expect(response.status, text).toBe(Number(status));
    if (status === "500") expect(logs.event("request.failed")).toMatchObject({ code: "internal_error", requestId: response.headers.get("x-request-id") });
    const parsed = documentedSchema(key, status).safeParse(JSON.parse(text));
    expect(parsed.error?.issues, text).toBeUndefined();
    for (const header of Object.keys(operation(key).responses[status]!.headers ?? {})) expect(response.headers.get(header), header).not.toBeNull();
  });
});

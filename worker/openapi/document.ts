// /openapi.json: generated at request time from the routes this deployment serves.
import * as z from "zod";
import { BODY_LIMITS } from "../http/input";
import type { OperationDoc, ResponseDoc } from "./declaration";

const COMPONENT_REF = (id: string) => `#/components/schemas/${id}`;

/** A request is described as the caller writes it (`input`: defaults optional), a response as it comes. */
function schemaOf(schema: z.ZodType, io: "input" | "output" = "output"): Record<string, unknown> {
  const id = z.globalRegistry.get(schema)?.id;
  if (id) return { $ref: COMPONENT_REF(id) };
  // Route bodies are named (meta id) and live in components; inlined here: path and query parameters
  // and the console procedures' inputs.
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { target: "draft-2020-12", unrepresentable: "any", io }) as Record<string, unknown>;
  return json;
}

function response(doc: ResponseDoc) {
  return {
    description: doc.description,
    ...(doc.headers
      ? { headers: Object.fromEntries(Object.entries(doc.headers).map(([name, description]) => [name, { description, schema: { type: "string" } }])) }
      : {}),
    ...(doc.schema ? { content: { "application/json": { schema: schemaOf(doc.schema) } } } : {}),
  };
}

/** One parameter per property of `schema`; a query parameter is required when it cannot be left out. */
function parameters(schema: z.ZodObject | undefined, where: "path" | "query") {
  return Object.entries(schema?.shape ?? {}).map(([name, property]) => {
    const field = property as z.ZodType;
    return { name, in: where, required: where === "path" || !field.safeParse(undefined).success, schema: schemaOf(field, "input") };
  });
}

function operation(route: OperationDoc) {
  const params = [
    ...parameters(route.params, "path"),
    ...parameters(route.query, "query"),
    ...(route.rpcInput ? [{ name: "input", in: "query", required: true, content: { "application/json": { schema: schemaOf(route.rpcInput, "input") } } }] : []),
  ];
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    security: route.security ? route.security.map((scheme) => ({ [scheme]: [] })) : [],
    ...(params.length ? { parameters: params } : {}),
    ...(route.body
      ? { requestBody: { required: route.bodyOptions?.emptyAs === undefined, content: { "application/json": { schema: schemaOf(route.body, "input") } } } }
      : {}),
    responses: Object.fromEntries(Object.entries(route.responses).map(([status, doc]) => [status, response(doc)])),
  };
}

/** The document of `operations`: the published routes the app serves and the console procedures. */
export function openApiDocument(serverUrl: string, operations: readonly OperationDoc[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of operations) (paths[route.path] ??= {})[route.method] = operation(route);
  const components = z.toJSONSchema(z.globalRegistry, { target: "draft-2020-12", unrepresentable: "any", uri: COMPONENT_REF });
  return {
    openapi: "3.1.0",
    info: {
      title: "Control plane",
      version: "1.0.0",
      license: { name: "MIT", identifier: "MIT" },
      description:
        "The control plane's API for its engine, CLI and console. Required token scopes are stated in each operation's text. " +
        `Request bodies are JSON (application/json), UTF-8, and at most ${BODY_LIMITS.default / 1024 / 1024} MiB (${BODY_LIMITS.events / 1024 / 1024} MiB on POST /v1/events), answered 413 past it; ` +
        "no text may hold a NUL character or a lone surrogate.",
    },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      schemas: components.schemas,
      securitySchemes: {
        engineToken: { type: "http", scheme: "bearer", description: "An engine token (static, or from the identity exchange)." },
        cliToken: { type: "http", scheme: "bearer", description: "A CLI token; operations state the scopes they need." },
        session: {
          type: "apiKey",
          in: "cookie",
          name: "__Host-svc_session",
          description: "Browser session (named svc_session when SVC_INSECURE_COOKIES=1); mutations also need x-svc-csrf.",
        },
        commitCredential: {
          type: "http",
          scheme: "bearer",
          description: "A commit credential from POST /v1/pr/callback-token: one commit, one workflow run, under an hour, one report.",
        },
      },
    },
  };
}

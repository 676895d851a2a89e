// GET /openapi.json: built at request time from the routes mounted on this app (their declarations)
// and the operations the composition root adds (the console procedures, whose router loads on first
// use, not at isolate start: worker/app.ts).
import type { Hono } from "hono";
import type { AppEnv } from "../http/context";
import { openApiDocument } from "./document";
import { declaredRoutes, hookResponses, type OperationDoc } from "./declaration";
import { planGate } from "../http/plan-gate";

/** The routes of `app` that /openapi.json describes, each with the answers its hook gives too. */
export const publishedRoutes = (app: Hono<AppEnv>): OperationDoc[] =>
  declaredRoutes(app)
    .filter((declared) => declared.published !== false)
    .map((declared) => ({ ...declared, responses: { ...hookResponses(declared), ...declared.responses } }));

export function registerOpenApi(app: Hono<AppEnv>, moreOperations: () => Promise<OperationDoc[]>): void {
  app.get("/openapi.json", planGate("reachable"), async (c) =>
    c.json(openApiDocument(c.var.config.server.appBaseUrl ?? new URL(c.req.url).origin, [...publishedRoutes(app), ...(await moreOperations())])),
  );
}

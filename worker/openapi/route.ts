// A route's description: the same zod schemas that validate it produce its OpenAPI entry.
import type { z } from "zod";
import { RefusalShape, ServerFailureShape } from "../http/shapes";

export type Security = "engineToken" | "cliToken" | "session";

export interface ResponseDoc {
  description: string;
  schema?: z.ZodType;
  headers?: Record<string, string>;
}

export interface RouteDoc {
  method: "get" | "post" | "put" | "delete";
  /** OpenAPI form: `/v1/things/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  security?: Security[];
  pathParams?: z.ZodObject;
  body?: z.ZodType;
  /** A query's input, JSON-encoded in the `input` query parameter (the console RPC). */
  queryInput?: z.ZodType;
  responses: Record<number, ResponseDoc>;
}

/** Hono's form of an OpenAPI path: `{id}` becomes `:id`. */
export const honoPath = (route: RouteDoc) => route.path.replace(/\{(\w+)\}/g, ":$1");

export const refusal = (description: string, headers?: Record<string, string>): ResponseDoc => ({
  description,
  schema: RefusalShape,
  ...(headers ? { headers } : {}),
});

export const serverFailure: ResponseDoc = { description: "Unexpected failure", schema: ServerFailureShape };

const routes: RouteDoc[] = [];

/** Declares a route for the OpenAPI description; every route module calls it for what it serves. */
export function describeRoute<R extends RouteDoc>(route: R): R {
  routes.push(route);
  return route;
}

export const describedRoutes = (): readonly RouteDoc[] => routes;

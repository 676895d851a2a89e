// The console procedures in /openapi.json: every customer procedure with its input schema (queries
// as GET with `input`, mutations as POST with a JSON body); operator procedures (admin.*) left out.
import * as z from "zod";
// Documents this service hands out as files (a data export), published among the components beside
// the routes' schemas: registered by importing it, before the document is built.
import "../exports/schema";
import type { OperationDoc } from "../openapi/declaration";
import { appRouter } from "./router";
import type { ProcedureMeta } from "../trpc/builder";

interface ProcedureDef {
  type: "query" | "mutation" | "subscription";
  inputs: unknown[];
  meta?: ProcedureMeta;
}

/** The procedure's inputs (each a zod object) merged into one object schema. */
function mergedInput(inputs: unknown[]): z.ZodObject | undefined {
  const shapes = inputs.filter((input): input is z.ZodObject => input instanceof z.ZodObject).map((input) => input.shape);
  return shapes.length ? z.object(Object.assign({}, ...shapes)) : undefined;
}

type Node = { _def: ProcedureDef & { procedure?: true } } | { [name: string]: Node };

/** Every procedure of the router by its dotted name. */
function flatten(record: Record<string, Node>, prefix = ""): Array<[string, { _def: ProcedureDef }]> {
  return Object.entries(record).flatMap(([name, node]) =>
    "_def" in node && (node._def as { procedure?: true }).procedure
      ? [[prefix + name, node as { _def: ProcedureDef }] as [string, { _def: ProcedureDef }]]
      : flatten(node as Record<string, Node>, `${prefix}${name}.`),
  );
}

export function rpcRouteDocs(): OperationDoc[] {
  return flatten(appRouter._def.record as unknown as Record<string, Node>)
    .filter(([name, procedure]) => !procedure._def.meta?.operator && !name.startsWith("admin."))
    .map(([name, { _def }]) => {
      const input = mergedInput(_def.inputs);
      const permission = _def.meta?.permission;
      return {
        method: _def.type === "query" ? "get" : "post",
        path: `/rpc/${name}`,
        operationId: `rpc.${name}`,
        summary: _def.meta?.summary ?? name,
        description:
          (permission
            ? `Needs the ${permission} permission in the organization.`
            : input?.shape.orgId
              ? "Needs a signed-in member of the organization (any role)."
              : "Needs a signed-in person.") + (_def.type === "query" ? " Input: the JSON-encoded `input` query parameter." : " Needs the x-svc-csrf header."),
        tag: "console",
        security: ["session"],
        ...(input ? (_def.type === "query" ? { rpcInput: input } : { body: input }) : {}),
        responses: {
          200: { description: "`{ result: { data } }`" },
          400: { description: "Input failed validation" },
          401: { description: "No session" },
          403: { description: "Role lacks the permission" },
        },
      } satisfies OperationDoc;
    });
}

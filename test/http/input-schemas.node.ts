// Every string a route or procedure takes is checked by the shared text schema (worker/http/text.ts):
// a new field with a bare z.string() fails here, naming the route and the field.
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { createApp } from "../../worker/app";
import { InstallationEvent, InstallationRepositoriesEvent } from "../../worker/codehost/webhook-schemas";
import { DeviceCodeRequest, DeviceDecision, DeviceTokenRequest } from "../../worker/device/schemas";
import { IngestedEvent, IngestRequest } from "../../worker/events/schemas";
import { BeaconEvent } from "../../worker/analytics/catalog";
import { BeaconBatch } from "../../worker/analytics/beacon-route";
import { isGuarded } from "../../worker/http/text";
import { declaredRoutes } from "../../worker/openapi/declaration";
import { appRouter } from "../../worker/rpc/router";

// Formats whose pattern admits only ASCII letters, digits and punctuation: nothing PostgreSQL refuses.
const SAFE_FORMATS = new Set(["uuid", "email", "datetime"]);

type Def = { type: string; format?: string; [key: string]: unknown };

/** Where under `schema` a string (or an unchecked JSON value) is taken without the shared check. */
function unguarded(schema: z.ZodType, at: string): string[] {
  if (isGuarded(schema)) return [];
  const def = schema._zod.def as unknown as Def;
  const walk = (inner: unknown, where = at) => unguarded(inner as z.ZodType, where);
  switch (def.type) {
    case "string":
      return def.format && SAFE_FORMATS.has(def.format) ? [] : [at];
    case "unknown":
    case "any":
      return [`${at} (unchecked JSON)`];
    case "object":
      return [
        ...Object.entries(def.shape as Record<string, unknown>).flatMap(([key, value]) => walk(value, `${at}.${key}`)),
        ...(def.catchall && (def.catchall as z.ZodType)._zod.def.type !== "never" ? walk(def.catchall, `${at}.*`) : []),
      ];
    case "array":
      return walk(def.element, `${at}[]`);
    case "record":
      return [...walk(def.keyType, `${at}{key}`), ...walk(def.valueType, `${at}{value}`)];
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
    case "nonoptional":
      return walk(def.innerType);
    case "pipe":
      return [...walk(def.in), ...walk(def.out)];
    case "union":
      return (def.options as unknown[]).flatMap((option) => walk(option));
    case "intersection":
      return [...walk(def.left), ...walk(def.right)];
    default:
      return []; // numbers, booleans, enums, literals: nothing PostgreSQL refuses
  }
}

describe("the shared text schema covers every input", () => {
  it("checks every string of every declared route's path parameters, query and body", () => {
    const found = declaredRoutes(createApp()).flatMap((route) =>
      [route.params, route.query, route.body]
        .filter((schema): schema is z.ZodType => schema !== undefined)
        // The batch is read as an array and each event checked on its own against IngestedEvent.
        .map((schema) => (schema === IngestRequest ? IngestedEvent : schema === BeaconBatch ? BeaconEvent : schema))
        .flatMap((schema) => unguarded(schema, `${route.method.toUpperCase()} ${route.path}`)),
    );
    expect(found).toEqual([]);
  });

  it("checks every string of every console procedure's input, operator procedures included", () => {
    const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { inputs: z.ZodType[] } }>);
    expect(procedures.length).toBeGreaterThan(20);
    const found = procedures.flatMap(([name, procedure]) => procedure._def.inputs.flatMap((input) => unguarded(input, name)));
    expect(found).toEqual([]);
  });

  it("checks every string of the other routes' input", () => {
    const undeclared: Record<string, z.ZodType> = {
      "POST /auth/device/code": DeviceCodeRequest,
      "POST /auth/device/token": DeviceTokenRequest,
      "POST /auth/device/approve": DeviceDecision,
      "installation delivery": InstallationEvent,
      "installation_repositories delivery": InstallationRepositoriesEvent,
    };
    expect(Object.entries(undeclared).flatMap(([where, schema]) => unguarded(schema, where))).toEqual([]);
  });

  it("would catch a bare string", () => {
    expect(unguarded(z.object({ name: z.string(), payload: z.record(z.string(), z.unknown()).optional() }), "x")).toEqual([
      "x.name",
      "x.payload{key}",
      "x.payload{value} (unchecked JSON)",
    ]);
  });
});

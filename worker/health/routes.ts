// Liveness and readiness, without authentication.
import type { Hono } from "hono";
import { openPool } from "../../db/neon";
import { unreadiness } from "../../db/readiness";
import type { Role } from "../../db/roles";
import type { Connection } from "../../db/transaction";
import type { AppEnv } from "../http/context";
import { register, route, serverFailure } from "../openapi/declaration";
import * as z from "zod";

export const ReadinessShape = z
  .strictObject({
    ready: z.boolean(),
    version: z.string(),
    commit: z.string(),
    reason: z
      .string()
      .optional()
      .describe(
        "Present only when ready is false: why the database did not answer, which login would bypass row-level security, or which migration is missing.",
      ),
  })
  .meta({ id: "Readiness" });

export const HealthShape = z.strictObject({ ok: z.literal(true) }).meta({ id: "Health" });

const READY_TIMEOUT_MS = 3_000;

const health = route({
  method: "get",
  path: "/health",
  operationId: "health",
  summary: "Liveness: answers without touching the database",
  tag: "health",
  gate: "reachable",
  responses: { 200: { description: "Alive", schema: HealthShape }, 500: serverFailure },
  handler: (_c, { reply }) => reply(200, { ok: true }),
});

const readyz = route({
  method: "get",
  path: "/readyz",
  operationId: "readyz",
  summary: "Readiness: the database answers, its logins may serve, and its schema is this version's or newer",
  tag: "health",
  gate: "reachable",
  responses: {
    200: { description: "Ready", schema: ReadinessShape },
    503: { description: "The database did not answer, a login would bypass row-level security, or the schema is behind this version", schema: ReadinessShape },
    500: serverFailure,
  },
  handler: async (c, { reply }) => {
    const { version, commit } = c.var.config.build;
    const { adminUrl, adminPoolMax } = c.var.config.database;
    // The operator's login too, on a pool of its own, at the same time.
    const admin = adminUrl ? openPool(adminUrl, "svc_operator", adminPoolMax) : null;
    try {
      const reasons = await Promise.all([probeDatabase(c.var.database().connect, "svc_app"), admin ? probeDatabase(admin.connect, "svc_operator") : null]);
      const reason = reasons.find((found) => found !== null) ?? null;
      return reason === null ? reply(200, { ready: true, version, commit }) : reply(503, { ready: false, version, commit, reason });
    } finally {
      if (admin) c.executionCtx.waitUntil(admin.end());
    }
  },
});

export function registerHealth(app: Hono<AppEnv>): void {
  register(app, health);
  register(app, readyz);
}

/** Null when the database answered that `role`'s login may serve this version; otherwise a sentence saying why not. */
async function probeDatabase(connect: () => Promise<Connection>, role: Role): Promise<string | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`The database did not answer within ${READY_TIMEOUT_MS / 1000} seconds.`), READY_TIMEOUT_MS);
  });
  const probe = unreadiness(connect, role).catch(() => "The database refused or dropped the connection.");
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

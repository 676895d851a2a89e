// Liveness and readiness, without authentication.
import { sql } from "drizzle-orm";
import type { Hono } from "hono";
import type { AppEnv } from "../http/context";
import { register, route, serverFailure } from "../openapi/route";
import * as z from "zod";

export const ReadinessShape = z
  .strictObject({
    ready: z.boolean(),
    version: z.string(),
    commit: z.string(),
    reason: z.string().optional().describe("Present only when ready is false: why the database did not answer."),
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
  summary: "Readiness: one trivial database query",
  tag: "health",
  gate: "reachable",
  responses: {
    200: { description: "Ready", schema: ReadinessShape },
    503: { description: "The database did not answer", schema: ReadinessShape },
    500: serverFailure,
  },
  handler: async (c, { reply }) => {
    const { version, commit } = c.var.config.build;
    const reason = await probeDatabase(c.var.database().connect);
    return reason === null ? reply(200, { ready: true, version, commit }) : reply(503, { ready: false, version, commit, reason });
  },
});

export function registerHealth(app: Hono<AppEnv>): void {
  register(app, health);
  register(app, readyz);
}

/** Null when the database answered; otherwise a sentence saying why not. */
async function probeDatabase(connect: ReturnType<AppEnv["Variables"]["database"]>["connect"]): Promise<string | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`The database did not answer within ${READY_TIMEOUT_MS / 1000} seconds.`), READY_TIMEOUT_MS);
  });
  const probe = (async () => {
    const connection = await connect();
    try {
      await connection.db.execute(sql`SELECT 1`);
      return null;
    } finally {
      connection.release();
    }
  })().catch(() => "The database refused or dropped the connection.");
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

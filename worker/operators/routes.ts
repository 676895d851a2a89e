// The operator portal over HTTP: the pages under /admin (one small page that calls the admin.*
// procedures), and sign-in, sign-out and "who am I" as JSON. Served only with SVC_ADMIN_DATABASE_URL
// set; never listed in /openapi.json.
import { and, eq, sql } from "drizzle-orm";
import type { Hono } from "hono";
import * as z from "zod";
import type { RequestPool } from "../../db/neon";
import { operators } from "../../db/schema/operators";
import { inTransaction } from "../../db/transaction";
import { addressBucket, clientAddressOf } from "../http/client-address";
import type { AppContext, AppEnv } from "../http/context";
import { refusalResponse } from "../http/failure";
import { BODY_LIMITS } from "../http/input";
import { enforceRateLimit, PER_ADDRESS_RULE } from "../http/rate-limit";
import { Refusal } from "../http/refusal";
import { text } from "../http/text";
import { refusal, register, route } from "../openapi/declaration";
import { readSessionCookie } from "../sessions";
import { csrfTokenFor, CSRF_HEADER, checkCsrf } from "../sessions";
import { CUSTOMER_SESSION, identifyOperator, openAdminPool, PORTAL_OFF, SIGN_IN_AS_OPERATOR, type OperatorCall } from "./access";
import { portalOffPage, portalPage } from "./page";
import { foldLogin, hashPassword, needsRehash, UNKNOWN_LOGIN_HASH, verifyPassword } from "./password";
import { clearOperatorCookie, createOperatorSession, endOperatorSession, readOperatorCookie, writeOperatorCookie } from "./sessions";
import { planGate } from "../http/plan-gate";

/** Sign-in attempts for one operator login, whatever the address: 10, then one every 90 seconds. */
const PER_LOGIN_RULE = { capacity: 10, refillPerSecond: 1 / 90 };

const SignIn = z.object({ login: text({ min: 1, max: 64 }), password: text({ min: 1, max: 1024 }) }).strict();
const OperatorShape = z.strictObject({ login: z.string(), csrfToken: z.string() }).meta({ id: "OperatorSession" });
const SignedOutShape = z.strictObject({ signedOut: z.literal(true) }).meta({ id: "OperatorSignedOut" });

/** Runs `work` with the operator role's pool for this request, ended once the request is done. */
async function withAdminPool<T>(c: AppContext, work: (pool: RequestPool) => Promise<T>): Promise<T> {
  const pool = openAdminPool(c.var.config);
  if (!pool) throw new Refusal("operator_portal_off", PORTAL_OFF);
  try {
    return await work(pool);
  } finally {
    c.executionCtx.waitUntil(pool.end());
  }
}

/** The operator calling, or the refusal: 503 portal off, 403 a customer session, 401 none. */
async function operatorOf(c: AppContext, pool: RequestPool): Promise<OperatorCall> {
  const found = await identifyOperator(pool, { operator: readOperatorCookie(c), customer: readSessionCookie(c) }, c.var.database().connect);
  if (found === "off") throw new Refusal("operator_portal_off", PORTAL_OFF);
  if (found === "customer") throw new Refusal("forbidden", CUSTOMER_SESSION);
  if (found === "none") throw new Refusal("unauthenticated", SIGN_IN_AS_OPERATOR);
  return found;
}

const session = route({
  method: "get",
  path: "/admin/session",
  operationId: "adminSession",
  summary: "The signed-in operator and the CSRF token for the portal's changes",
  tag: "operators",
  gate: "reachable",
  published: false,
  responses: {
    200: { description: "Signed in as an operator", schema: OperatorShape },
    401: refusal("No operator session"),
    403: refusal("A customer session: the portal is for operators"),
    503: refusal("SVC_ADMIN_DATABASE_URL is not set"),
  },
  handler: (c, { reply }) =>
    withAdminPool(c, async (pool) => {
      const call = await operatorOf(c, pool);
      return reply(200, { login: call.session.login, csrfToken: await csrfTokenFor(call.session.token) });
    }),
});

const signIn = route({
  method: "post",
  path: "/admin/signin",
  operationId: "adminSignIn",
  summary: "Operator sign-in with a login and password; sets the svc_operator_session cookie",
  tag: "operators",
  gate: "reachable",
  published: false,
  body: SignIn,
  bodyOptions: { limit: BODY_LIMITS.default },
  responses: {
    200: { description: "Signed in", schema: OperatorShape },
    401: refusal("Unknown login or wrong password (the same answer for both)"),
    429: refusal("Too many attempts", { "retry-after": "Seconds to wait" }),
    503: refusal("SVC_ADMIN_DATABASE_URL is not set"),
  },
  handler: (c, { body, reply }) =>
    withAdminPool(c, async (pool) => {
      const address = clientAddressOf(c);
      const login = foldLogin(body.login);
      await enforceRateLimit(c.env, addressBucket("operator-signin", address), PER_ADDRESS_RULE, 1, "Too many operator sign-in attempts from this address.");
      // Keyed by the login as the database compares it: `Admin` and `admin` draw on one bucket (text no login can be shares one).
      await enforceRateLimit(c.env, `operator-signin-login:${login ?? ""}`, PER_LOGIN_RULE, 1, "Too many sign-in attempts for this operator.");
      const found = login
        ? await inTransaction(
            pool.connect,
            {},
            async (tx) =>
              (
                await tx
                  .select({ id: operators.id, passwordHash: operators.passwordHash })
                  .from(operators)
                  .where(eq(sql`lower(${operators.login})`, login))
              )[0],
          )
        : undefined;
      // Hashing (a few hundred milliseconds) holds no transaction. An unknown login costs the same
      // hashing as a wrong password, so the answer's timing tells nothing.
      const matches = await verifyPassword(body.password, found?.passwordHash ?? UNKNOWN_LOGIN_HASH);
      const rehashed = found && matches && needsRehash(found.passwordHash) ? await hashPassword(body.password) : null;
      const token =
        found && matches
          ? await inTransaction(pool.connect, {}, async (tx) => {
              // Only while the hash that verified is still the stored one (a reset in between wins); an
              // older scheme's hash is replaced by today's in the same statement.
              const { rowCount } = await tx.execute(
                tx
                  .update(operators)
                  .set({ passwordHash: rehashed ?? found.passwordHash })
                  .where(and(eq(operators.id, found.id), eq(operators.passwordHash, found.passwordHash))),
              );
              return rowCount ? createOperatorSession(tx, found.id, address) : null;
            })
          : null;
      if (!token) throw new Refusal("unauthenticated", "That login and password do not match an operator.");
      writeOperatorCookie(c, token);
      return reply(200, { login: body.login, csrfToken: await csrfTokenFor(token) });
    }),
});

const signOut = route({
  method: "post",
  path: "/admin/signout",
  operationId: "adminSignOut",
  summary: "Ends the operator session (needs x-svc-csrf)",
  tag: "operators",
  gate: "reachable",
  published: false,
  responses: {
    200: { description: "Signed out", schema: SignedOutShape },
    401: refusal("No operator session"),
    403: refusal("A customer session, or the CSRF header is missing or wrong"),
    503: refusal("SVC_ADMIN_DATABASE_URL is not set"),
  },
  handler: (c, { reply }) =>
    withAdminPool(c, async (pool) => {
      const call = await operatorOf(c, pool);
      await checkCsrf(call.session.token, c.req.header(CSRF_HEADER));
      await inTransaction(pool.connect, {}, (tx) => endOperatorSession(tx, call.session.id));
      clearOperatorCookie(c);
      return reply(200, { signedOut: true });
    }),
});

export function registerOperators(app: Hono<AppEnv>): void {
  register(app, session);
  register(app, signIn);
  register(app, signOut);
  // The pages: one document whose script signs in and calls the admin.* procedures.
  const pages = (c: AppContext) => {
    if (!c.var.config.database.adminUrl) {
      c.header("x-svc-error-code", "operator_portal_off");
      return c.html(portalOffPage(), 503);
    }
    return c.html(portalPage());
  };
  app.get("/admin", planGate("reachable"), pages);
  app.get("/admin/*", planGate("reachable"), pages);
  // Anything else under /admin (a POST to a page) is refused like every /admin request while the portal is off.
  app.all("/admin/*", planGate("reachable"), (c) =>
    refusalResponse(
      c.var.config.database.adminUrl ? new Refusal("not_found", "Nothing is served at this address.") : new Refusal("operator_portal_off", PORTAL_OFF),
      c.var.requestId,
    ),
  );
}

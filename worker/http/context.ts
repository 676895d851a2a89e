// The typed context every route sees: configuration and per-request services, built by middleware.
// Plumbing: a capability that sets a variable of its own declares it where it sets it, in hono's
// ContextVariableMap (worker/metrics/observe.ts), so these types import no capability.
import type { Context } from "hono";
import type { Config } from "../config/types";
import type { Env } from "../env";
import type { RequestPool } from "../../db/neon";
import type { LiveSession, TokenCaller } from "./caller";

export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    config: Config;
    /** The application role's pool for this request, opened on first use and ended after it. */
    database: () => RequestPool;
    /** A caller whose token the route's work checks (identifyToken). */
    caller: TokenCaller;
    /** The browser session, set by requireSession. */
    session: LiveSession;
    /** The served route's side of the plan gate, which it declares (worker/http/plan-gate.ts). */
    planGate?: GateSide;
    /** This response's script nonce, when a page made one (worker/http/page-headers.ts). */
    scriptNonce?: string;
    /** The answer's body was built whole before it was returned (a route's `reply`): nothing runs for it after. */
    wholeBody?: true;
  };
}

export type AppContext = Context<AppEnv>;

/** A route's or procedure's side of the required-plan gate (worker/http/plan-gate.ts). */
export type GateSide = "gated" | "reachable";

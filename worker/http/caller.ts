// Who a request acts as, once a capability has found it: plain shapes, importing nothing, so the
// request's context (context.ts) and Node tools alike can name them.

/** A browser session a request acts as (worker/sessions finds it). */
export interface LiveSession {
  id: string;
  personId: string;
  token: string;
}

/** A caller whose token is checked where the route's work runs: the token's hash and its organization (worker/auth/bearer.ts). */
export interface TokenCaller {
  tokenHash: string;
  orgId: string;
}

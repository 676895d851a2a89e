// Checking an authorization request (RFC 6749 4.1.1 with PKCE, RFC 7636, and resource indicators,
// RFC 8707), the same way for the consent page and for the decision it posts. Problems with the
// client or its redirect URI are shown to the person (RFC 6749 4.1.2.1: never redirect to an
// unverified address); every other problem names the client's redirect URI, where the route sends it
// only for a person who consented to that client before (worker/mcp/oauth-routes.ts).
import type { Connection } from "../../db/transaction";
import { lookUpClient } from "./clients";
import type { AuthorizationRequest } from "./consent-page";

/** RFC 7636 4.2: BASE64URL of a SHA-256 digest is 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const MAX_PARAMETER = 2000;

export type Checked =
  | { ok: true; clientName: string; request: AuthorizationRequest }
  /** Shown to the person: there is no verified address to send it to. */
  | { ok: false; show: string }
  /** Sent back to the client's redirect URI, or shown (see the route). */
  | { ok: false; clientId: string; redirectUri: string; state: string | null; error: string; description: string };

export async function checkAuthorizationRequest(
  connect: () => Promise<Connection>,
  parameters: Record<string, string | undefined>,
  resource: string,
): Promise<Checked> {
  const tooLong = Object.entries(parameters).find(([, value]) => value !== undefined && value.length > MAX_PARAMETER);
  if (tooLong) return { ok: false, show: `The ${tooLong[0]} parameter is longer than ${MAX_PARAMETER} characters.` };
  const clientId = parameters.client_id;
  const client = clientId ? await lookUpClient(connect, clientId) : null;
  if (!client) return { ok: false, show: "The model client is not registered here (unknown client_id)." };
  const redirectUri = parameters.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0]! : undefined);
  if (!redirectUri) return { ok: false, show: "The model client named no redirect_uri, and it registered more than one." };
  // Exact match only: no prefix, no wildcard, no normalization.
  if (!client.redirectUris.includes(redirectUri)) {
    return {
      ok: false,
      show: "The redirect_uri is not one the model client registered; this service sends the answer only to a registered address, matched exactly.",
    };
  }
  const state = parameters.state ?? null;
  const back = (error: string, description: string): Checked => ({ ok: false, clientId: client.clientId, redirectUri, state, error, description });
  if (parameters.response_type !== "code") return back("unsupported_response_type", "Only response_type=code is served.");
  if (!parameters.code_challenge) return back("invalid_request", "PKCE is required: send a code_challenge with code_challenge_method=S256.");
  if (parameters.code_challenge_method !== "S256") return back("invalid_request", "Only the S256 code_challenge_method is accepted (plain is refused).");
  if (!S256_CHALLENGE.test(parameters.code_challenge)) return back("invalid_request", "The code_challenge is not a BASE64URL SHA-256 digest (43 characters).");
  if (parameters.resource !== undefined && parameters.resource !== resource) {
    return back("invalid_target", `The only resource served is ${resource}.`);
  }
  return {
    ok: true,
    clientName: client.clientName,
    request: {
      clientId: client.clientId,
      redirectUri,
      codeChallenge: parameters.code_challenge,
      state,
      resource: parameters.resource ?? null,
      scope: parameters.scope ?? null,
    },
  };
}

/** The client's redirect URI with the answer's parameters added (RFC 6749 4.1.2, RFC 9207 `iss`). */
export function answerUrl(redirectUri: string, answer: Record<string, string | null>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(answer)) if (value !== null) url.searchParams.set(name, value);
  return url.toString();
}

// The code host's OAuth web flow for a browser: the authorize page, the code exchange, and the
// account's identity and organization roles read with the person's own token.
import type { Config } from "../config/types";
import { callCodehost } from "../codehost/codehost-api";
import { readAllPages } from "../codehost/paged";

/** Where the authorize page and the token exchange live: github.com beside api.github.com; an
 *  enterprise server's web root beside its `/api/v3`; any other API base serves both itself. */
export function codehostWebBase(apiBase: string): string {
  const base = apiBase.replace(/\/+$/, "");
  if (base === "https://api.github.com") return "https://github.com";
  return base.replace(/\/api\/v3$/, "");
}

export const OAUTH_SCOPES = "read:user user:email read:org";

export function authorizeUrl(config: Config, state: string): string {
  const url = new URL(`${codehostWebBase(config.codehost.apiBase)}/login/oauth/authorize`);
  url.search = new URLSearchParams({
    client_id: config.codehost.clientId,
    redirect_uri: config.codehost.redirectUri,
    scope: OAUTH_SCOPES,
    state,
  }).toString();
  return url.toString();
}

/** The person's access token for `code`, or null when the code host refuses the code. */
export async function exchangeCode(config: Config, code: string): Promise<string | null> {
  const response = await fetch(`${codehostWebBase(config.codehost.apiBase)}/login/oauth/access_token`, {
    method: "POST",
    headers: { accept: "application/json", "content-type": "application/json", "user-agent": "svc-control-plane" },
    body: JSON.stringify({
      client_id: config.codehost.clientId,
      client_secret: config.codehost.clientSecret,
      code,
      redirect_uri: config.codehost.redirectUri,
    }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json().catch(() => null)) as { access_token?: unknown } | null;
  return response.ok && typeof body?.access_token === "string" ? body.access_token : null;
}

export interface CodehostAccount {
  id: number;
  login: string;
  name: string | null;
  email: string | null;
  avatarUrl: string | null;
}

export async function fetchAccount(config: Config, accessToken: string): Promise<CodehostAccount | null> {
  const answer = await callCodehost(config.codehost.apiBase, "GET", "/user", accessToken);
  const user = answer.body as { id?: unknown; login?: unknown; name?: unknown; email?: unknown; avatar_url?: unknown } | null;
  if (answer.status !== 200 || typeof user?.id !== "number" || typeof user.login !== "string") return null;
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : null);
  return { id: user.id, login: user.login, name: text(user.name), email: text(user.email), avatarUrl: text(user.avatar_url) };
}

/** The logins of every organization the account belongs to; throws CodehostListFailed when any page fails. */
export async function fetchOrganizationLogins(config: Config, accessToken: string): Promise<string[]> {
  const organizations = await readAllPages(config.codehost.apiBase, "/user/orgs", accessToken);
  return organizations.map((org) => (org as { login?: unknown } | null)?.login).filter((login): login is string => typeof login === "string");
}

/** `admin` for an organization owner, `member` otherwise, null when the code host will not say. */
export async function fetchOrganizationRole(config: Config, accessToken: string, org: string): Promise<"admin" | "member" | null> {
  const answer = await callCodehost(config.codehost.apiBase, "GET", `/user/memberships/orgs/${encodeURIComponent(org)}`, accessToken);
  const membership = answer.body as { role?: unknown; state?: unknown } | null;
  if (answer.status !== 200 || membership?.state !== "active") return null;
  return membership.role === "admin" ? "admin" : membership.role === "member" ? "member" : null;
}

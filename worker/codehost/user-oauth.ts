// The code host's OAuth web flow for a browser: the authorize page, the code exchange, and the
// account's identity and organization roles read with the person's own token.
import { assertNoTransaction } from "../../db/transaction";
import type { Config } from "../config/types";
import { callCodehost } from "./codehost-api";
import { readAllPages } from "./paged";

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
  assertNoTransaction("The code host's OAuth exchange");
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

/** A code-host account as the code host names it now: the numeric id is what identifies it; the login is a display name. */
export interface CodehostAccountRef {
  id: number;
  login: string;
}

const accountRef = (value: unknown): CodehostAccountRef | null => {
  const account = value as { id?: unknown; login?: unknown } | null;
  return Number.isSafeInteger(account?.id) && (account!.id as number) > 0 && typeof account!.login === "string"
    ? { id: account!.id as number, login: account!.login }
    : null;
};

/** Every organization the account belongs to; throws CodehostListFailed when any page fails. */
export async function fetchOrganizations(config: Config, accessToken: string): Promise<CodehostAccountRef[]> {
  const organizations = await readAllPages(config.codehost.apiBase, "/user/orgs", accessToken);
  return organizations.map(accountRef).filter((org): org is CodehostAccountRef => org !== null);
}

/**
 * `admin` for an organization owner, `member` otherwise, null when the code host will not say. The
 * membership is asked by login (the code host's address for it) and counts only when the answer is
 * about the same account (its id): a login renamed and taken between the two calls says nothing.
 */
export async function fetchOrganizationRole(config: Config, accessToken: string, org: CodehostAccountRef): Promise<"admin" | "member" | null> {
  const answer = await callCodehost(config.codehost.apiBase, "GET", `/user/memberships/orgs/${encodeURIComponent(org.login)}`, accessToken);
  const membership = answer.body as { role?: unknown; state?: unknown; organization?: unknown } | null;
  if (answer.status !== 200 || membership?.state !== "active" || accountRef(membership.organization)?.id !== org.id) return null;
  return membership.role === "admin" ? "admin" : membership.role === "member" ? "member" : null;
}

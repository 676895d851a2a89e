// Driving the code-host capability as the code host and its workflows would: identity tokens from the
// fake code host's issuer, signed App deliveries, and the fake's control routes.
import { env } from "cloudflare:workers";
import { inject } from "vitest";
import { signWebhookBody, SIGNATURE_HEADER } from "../../worker/codehost/webhook-signature";
import { hashToken } from "../../worker/http/hash";
import { call } from "./http";
import { asRole } from "./sql";

/** A request to the fake code host (its API or its /_fake/ control routes). */
export function fake(path: string, init: { method?: string; json?: unknown; bearer?: string; redirect?: "manual" } = {}): Promise<Response> {
  const headers: Record<string, string> = init.bearer ? { authorization: `Bearer ${init.bearer}` } : {};
  if (init.json !== undefined) headers["content-type"] = "application/json";
  return fetch(inject("codehostBase") + path, {
    method: init.method ?? (init.json === undefined ? "GET" : "POST"),
    headers,
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
    ...(init.redirect ? { redirect: init.redirect } : {}),
  });
}

const someId = () => String(1_000_000_000 + Math.floor(Math.random() * 8_000_000_000));

export interface TestRepository {
  owner: string;
  ownerId: string;
  /** `owner/name`. */
  full: string;
  repositoryId: string;
}

/** A repository no other test uses, with its own owner account. */
export function newRepository(prefix = "acct", name = "shop"): TestRepository {
  const owner = `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
  return { owner, ownerId: someId(), full: `${owner}/${name}`, repositoryId: someId() };
}

export type TokenVariant = "wrong_key" | "unknown_kid" | "no_kid" | "rs384" | "hs256" | "none";

/** An identity token for a workflow run of `repository`, from the fake's issuer, for the service's audience. */
export async function identityToken(repository: TestRepository, claims: Record<string, unknown> = {}, signing: { variant?: TokenVariant; kid?: string } = {}) {
  const response = await fake("/_fake/oidc/token", {
    json: {
      claims: {
        repository: repository.full,
        repository_id: repository.repositoryId,
        repository_owner: repository.owner,
        repository_owner_id: repository.ownerId,
        ...claims,
      },
      ...signing,
    },
  });
  return ((await response.json()) as { token: string }).token;
}

export const exchange = (token: unknown) => call("/v1/auth/codehost-oidc", { method: "POST", json: { token } });

export interface ExchangeResult {
  token: string;
  expires_at: string;
  org_id: string;
  repository: string;
}

/** A delivery signed like the code host's, under the configured webhook secret unless told otherwise. */
export async function deliver(
  event: string,
  payload: unknown,
  options: { delivery?: string; secret?: string; signature?: string | null; body?: string } = {},
): Promise<Response> {
  const body = options.body ?? JSON.stringify(payload);
  const signature = options.signature === undefined ? await signWebhookBody(options.secret ?? env.SVC_CODEHOST_APP_WEBHOOK_SECRET!, body) : options.signature;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-github-event": event,
    "x-github-delivery": options.delivery ?? crypto.randomUUID(),
  };
  if (signature !== null) headers[SIGNATURE_HEADER] = signature;
  return call("/webhooks/codehost", { method: "POST", headers, body });
}

export const someInstallationId = () => Math.floor(Math.random() * 1e12) + 1;

export const installationPayload = (action: string, installationId: number, account: { login: string; id: string | number }, extra: object = {}) => ({
  action,
  installation: { id: installationId, account: { login: account.login, id: Number(account.id), type: "Organization" } },
  sender: { login: account.login },
  ...extra,
});

/** Installs the App on the repository's owner through a signed delivery; the organization it landed in. */
export async function installApp(repository: TestRepository, installationId = someInstallationId()) {
  // The fake code host answers the owner under the same id when people sign in and list their organizations.
  const known = await fake("/_fake/accounts", { json: { login: repository.owner, id: Number(repository.ownerId) } });
  if (known.status !== 200) throw new Error(`registering ${repository.owner} with the fake code host answered ${known.status}`);
  const response = await deliver(
    "installation",
    installationPayload(
      "created",
      installationId,
      { login: repository.owner, id: repository.ownerId },
      {
        repositories: [{ id: Number(repository.repositoryId), full_name: repository.full }],
      },
    ),
  );
  if (response.status !== 200) throw new Error(`installing the App answered ${response.status}`);
  return { installationId, orgId: await organizationOfInstallation(installationId) };
}

export async function organizationOfInstallation(installationId: number): Promise<string> {
  return asRole("superuser", async (client) => {
    const { rows } = await client.query("SELECT org_id FROM installations WHERE codehost_installation_id = $1", [installationId]);
    return rows[0].org_id as string;
  });
}

/** POST /v1/oidc/bindings as a CLI token: with no proof arranged, the claim stays pending (403). */
export async function postClaim(cliToken: string, repository: string) {
  return call("/v1/oidc/bindings", { method: "POST", token: cliToken, json: { repository } });
}

/**
 * What a claim proven by installation needs: the code host knows the repository under the test's ids,
 * and the organization holds a live App installation on its owner's account (or on `accountId`, another
 * account that had the owner's login). Answers the installation row's id.
 */
export async function arrangeInstallationProof(orgId: string, repository: TestRepository, accountId = repository.ownerId): Promise<string> {
  const hosted = await fake("/_fake/git/repositories", {
    json: { repository: repository.full, id: Number(repository.repositoryId), ownerId: Number(repository.ownerId) },
  });
  if (hosted.status !== 204) throw new Error(`hosting ${repository.full} answered ${hosted.status}`);
  return asRole("superuser", async (client) => {
    const { rows } = await client.query(
      "INSERT INTO installations (org_id, codehost_installation_id, account_login, account_id) VALUES ($1, $2, $3, $4) RETURNING id",
      [orgId, someInstallationId(), repository.owner, accountId],
    );
    return rows[0].id as string;
  });
}

/**
 * Claims a repository through the API as a CLI token with tokens.manage, proven by an App installation
 * of the token's organization on the owner, which is then uninstalled: the claim stays, and the App
 * cannot act on the owner afterwards (as in a test that claimed without one).
 */
export async function claim(cliToken: string, repository: TestRepository) {
  const orgId = await asRole(
    "superuser",
    async (client) =>
      (await client.query("SELECT org_id FROM tokens WHERE token_hash = $1", [await hashToken(cliToken)])).rows[0]?.org_id as string | undefined,
  );
  const installation = orgId ? await arrangeInstallationProof(orgId, repository) : null;
  const response = await postClaim(cliToken, repository.full);
  if (installation) await asRole("superuser", (client) => client.query("UPDATE installations SET deleted_at = now() WHERE id = $1", [installation]));
  return response;
}

/** Makes page `page` of the fake's list at `path` answer `status`, or link its next page to `next`; neither puts it right. */
export async function listFault(path: string, page: number, fault: { status?: number; next?: string } = {}) {
  const response = await fake("/_fake/list-faults", { json: { path, page, ...fault } });
  if (response.status !== 204) throw new Error(`setting a list fault answered ${response.status}`);
}

// Acting as the App on one of the organization's accounts: its installation there, then an
// installation token. Used to dispatch workflows and to read an organization's members.
import type { Tx } from "../../db/transaction";
import type { CodehostConfig } from "../config/types";
import { appJwt } from "./app-jwt";
import { callCodehost, describeAnswer } from "./codehost-api";
import { installationsOnAccount, ownInstallationsNamed } from "./installations";

export type AppAccess = { ok: true; token: string } | { ok: false; status: number | null; reason: string };

/**
 * In a transaction acting as the organization whose installation on `account` (a login, for the
 * sentences and when the numeric id is not known: a repository named by its owner) is used; by the
 * account's numeric id when the caller knows it.
 */
export async function appAccessTo(tx: Tx, codehost: CodehostConfig, account: string, accountId?: string): Promise<AppAccess> {
  if (!codehost.app) return { ok: false, status: null, reason: "No code-host App is configured on this service, so it cannot act on the code host." };
  const [installation] = accountId === undefined ? await ownInstallationsNamed(tx, account) : await installationsOnAccount(tx, accountId);
  if (!installation) return { ok: false, status: null, reason: `The App is not installed on ${account} for this organization; install it there, then try again.` };
  if (installation.suspended) return { ok: false, status: null, reason: `The App installation on ${account} is suspended; an owner of ${account} must unsuspend it.` };
  const grant = await callCodehost(codehost.apiBase, "POST", `/app/installations/${installation.codehostInstallationId}/access_tokens`, await appJwt(codehost.app));
  const token = (grant.body as { token?: unknown } | null)?.token;
  if (grant.status !== 201 || typeof token !== "string") {
    return { ok: false, status: grant.status, reason: `The code host did not let the App act on ${account} (${describeAnswer(grant)}).` };
  }
  return { ok: true, token };
}

// Acting as the App on one of the organization's accounts: its installation there, then an
// installation token. Used to dispatch workflows, to read an organization's members and to prove a
// repository claim.
import type { Tx } from "../../db/transaction";
import type { CodehostConfig } from "../config/types";
import { appJwt } from "./app-jwt";
import { callCodehost, describeAnswer } from "./codehost-api";
import { installationsOnAccount } from "./installations";

export type AppAccess = { ok: true; token: string } | { ok: false; status: number | null; reason: string };

const NO_APP: AppAccess = { ok: false, status: null, reason: "No code-host App is configured on this service, so it cannot act on the code host." };

/** In a transaction acting as the organization whose installation on `account` is used. */
export async function appAccessTo(tx: Tx, codehost: CodehostConfig, account: string): Promise<AppAccess> {
  if (!codehost.app) return NO_APP;
  const [installation] = await installationsOnAccount(tx, account);
  if (!installation) return { ok: false, status: null, reason: `The App is not installed on ${account} for this organization; install it there, then try again.` };
  if (installation.suspended) return { ok: false, status: null, reason: `The App installation on ${account} is suspended; an owner of ${account} must unsuspend it.` };
  return installationAccess(codehost, installation.codehostInstallationId, account);
}

/** An installation token for the code host's installation `codehostInstallationId` (on `account`); no database work. */
export async function installationAccess(codehost: CodehostConfig, codehostInstallationId: string, account: string): Promise<AppAccess> {
  if (!codehost.app) return NO_APP;
  const grant = await callCodehost(codehost.apiBase, "POST", `/app/installations/${codehostInstallationId}/access_tokens`, await appJwt(codehost.app));
  const token = (grant.body as { token?: unknown } | null)?.token;
  if (grant.status !== 201 || typeof token !== "string") {
    return { ok: false, status: grant.status, reason: `The code host did not let the App act on ${account} (${describeAnswer(grant)}).` };
  }
  return { ok: true, token };
}

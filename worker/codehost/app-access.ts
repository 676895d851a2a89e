// Acting as the App on one of the organization's accounts: its installation there, then an
// installation token. Used to dispatch workflows and to read an organization's members.
import type { Transaction } from "../../db/transaction";
import type { CodehostConfig } from "../config/types";
import { appJwt } from "./app-jwt";
import { callCodehost, describeAnswer } from "./codehost-api";
import { ownInstallationsNamed, type InstallationOnAccount } from "./installations";

export type AppAccess = { ok: true; token: string } | { ok: false; status: number | null; reason: string };

const NO_APP: AppAccess = { ok: false, status: null, reason: "No code-host App is configured on this service, so it cannot act on the code host." };

/**
 * With units of work acting as the organization whose installation on `account` is used: a login (a
 * repository named by its owner), which picks only among the organization's own installations. The
 * installation is read in a transaction of its own; the token is asked for after it commits.
 */
export async function appAccessTo(transaction: Transaction, codehost: CodehostConfig, account: string): Promise<AppAccess> {
  if (!codehost.app) return NO_APP;
  const [installation] = await transaction((tx) => ownInstallationsNamed(tx, account));
  if (!installation)
    return { ok: false, status: null, reason: `The App is not installed on ${account} for this organization; install it there, then try again.` };
  return installationToken(codehost, installation, account);
}

/** An installation token for an installation already read (the caller need hold no transaction); `account` names it in sentences. */
export async function installationToken(codehost: CodehostConfig, installation: InstallationOnAccount, account: string): Promise<AppAccess> {
  if (!codehost.app) return NO_APP;
  if (installation.suspended)
    return { ok: false, status: null, reason: `The App installation on ${account} is suspended; an owner of ${account} must unsuspend it.` };
  const grant = await callCodehost(
    codehost.apiBase,
    "POST",
    `/app/installations/${installation.codehostInstallationId}/access_tokens`,
    await appJwt(codehost.app),
  );
  const token = (grant.body as { token?: unknown } | null)?.token;
  if (grant.status !== 201 || typeof token !== "string") {
    return { ok: false, status: grant.status, reason: `The code host did not let the App act on ${account} (${describeAnswer(grant)}).` };
  }
  return { ok: true, token };
}

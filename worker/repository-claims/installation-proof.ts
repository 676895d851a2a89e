// Proof by installation: the claiming organization holds a live App installation on the repository's
// owner. Decided by numeric ids, never by login: the repository is read at the code host as that
// installation, and its owner's id must be the installation's account id. Network only: called
// before or after a transaction, never inside one.
import type { CodehostConfig } from "../config/types";
import { installationToken } from "../codehost";
import { callCodehost, CodehostUnreachable, describeAnswer } from "../codehost";
import type { InstallationOnAccount } from "../codehost";

export type InstallationProof =
  | { ok: true; installationId: string; repositoryId: string; ownerId: string }
  /** `reason`: why no installation proved it, as a sentence, or null when the organization has none there. */
  | { ok: false; reason: string | null };

const asId = (value: unknown) => (Number.isSafeInteger(value) && (value as number) > 0 ? String(value) : null);

/** `installations`: the organization's installations on the repository's owner login (candidates only). */
export async function proveByInstallation(codehost: CodehostConfig, installations: InstallationOnAccount[], repository: string): Promise<InstallationProof> {
  let reason: string | null = null;
  const [owner] = repository.split("/") as [string, string];
  for (const installation of installations.filter((row) => !row.suspended)) {
    try {
      const access = await installationToken(codehost, installation, owner);
      if (!access.ok) {
        reason = access.reason;
        continue;
      }
      const answer = await callCodehost(codehost.apiBase, "GET", `/repos/${repository.split("/").map(encodeURIComponent).join("/")}`, access.token);
      const body = answer.body as { id?: unknown; owner?: { id?: unknown } | null } | null;
      const repositoryId = asId(body?.id);
      const ownerId = asId(body?.owner?.id);
      if (answer.status === 200 && repositoryId && ownerId === installation.accountId) {
        return { ok: true, installationId: installation.id, repositoryId, ownerId };
      }
      reason =
        answer.status === 200
          ? `${repository} belongs to another account than the one this organization's App installation is on.`
          : `The App could not read ${repository} as this organization's installation (${describeAnswer(answer)}).`;
    } catch (error) {
      if (!(error instanceof CodehostUnreachable)) throw error;
      reason = `The code host could not be reached (${error.message}) to check this organization's App installation.`;
    }
  }
  return { ok: false, reason };
}

// POST /v1/pr/report: the commit credential's one report, made into a check run on its commit at the
// code host, as the App, while the repository claim it came through is live. The credential is taken
// (reported_at set) in a short transaction before the code host is asked, so two reports at once make
// one check without a transaction held across the call; a refused check gives it back, unspent, to
// report again.
import { and, eq, isNull, sql } from "drizzle-orm";
import { organizations } from "../../db/schema/organizations";
import { prCredentials } from "../../db/schema/proposals";
import { repositoryClaims } from "../../db/schema/repository-claims";
import { inTenant, inTransaction, tenantTransaction, type Connection, type Transaction } from "../../db/transaction";
import { actAs } from "../../db/acting";
import type { CodehostConfig } from "../config/types";
import type { AppContext } from "../http/context";
import { appAccessTo } from "../codehost";
import { callCodehost, CodehostUnreachable, describeAnswer } from "../codehost";
import { ownerOf } from "../http/repository-name";
import { organizationSuspended } from "../auth";
import { Refusal } from "../http/refusal";
import { hashToken } from "../http/hash";
import { ALREADY_REPORTED } from "./credential";
import type { CHECK_CONCLUSIONS } from "./schemas";

export interface Report {
  conclusion: (typeof CHECK_CONCLUSIONS)[number];
  title: string;
  summary: string;
  name: string;
  commit?: string | undefined;
  runId?: string | undefined;
}

const CREDENTIAL = {
  id: prCredentials.id,
  orgId: prCredentials.orgId,
  repository: prCredentials.repository,
  commitSha: prCredentials.commitSha,
  runId: prCredentials.runId,
  runAttempt: prCredentials.runAttempt,
  live: sql<boolean>`${prCredentials.expiresAt} > now()`,
  reportedAt: prCredentials.reportedAt,
  bindingId: prCredentials.bindingId,
};
type CredentialRow = Pick<typeof prCredentials.$inferSelect, Exclude<keyof typeof CREDENTIAL, "live">> & { live: boolean };

/** The commit credential the caller sends as its bearer. */
export function presentedCredential(c: AppContext): string {
  const credential = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
  if (!credential) throw new Refusal("unauthenticated", "Send the commit credential as an HTTP bearer.");
  return credential;
}

/**
 * The live credential behind `credential`, or the 401 that says why there is none: unknown, expired,
 * or its repository claim revoked (or never proven) since it was issued: it dies with the claim.
 */
export async function findCredential(connect: () => Promise<Connection>, credential: string): Promise<CredentialRow> {
  const tokenHash = await hashToken(credential);
  const found = await inTransaction(connect, { lookups: { token_hash: tokenHash } }, async (tx) => {
    const [row] = await tx.select(CREDENTIAL).from(prCredentials).where(eq(prCredentials.tokenHash, tokenHash));
    if (!row) return null;
    await actAs(tx, row.orgId);
    const [claim] = await tx
      .select({ live: sql<boolean>`${repositoryClaims.revokedAt} IS NULL AND ${repositoryClaims.proof} IS NOT NULL` })
      .from(repositoryClaims)
      .where(eq(repositoryClaims.id, sql`${row.bindingId}`));
    return { row, claimLive: claim?.live === true };
  });
  if (!found) throw new Refusal("unauthenticated", "This commit credential is unknown; request one with POST /v1/pr/callback-token.");
  if (!found.row.live)
    throw new Refusal("unauthenticated", "This commit credential has expired (they last under an hour); request a new one from the workflow run.");
  if (!found.claimLive) {
    throw new Refusal(
      "unauthenticated",
      `The claim on ${found.row.repository} this commit credential came through was revoked, so the credential died with it.`,
    );
  }
  return found.row;
}

export async function reportCheck(connect: () => Promise<Connection>, codehost: CodehostConfig, credential: string, report: Report) {
  const found = await findCredential(connect, credential);
  if (report.commit !== undefined && report.commit !== found.commitSha) {
    throw new Refusal("forbidden", `This credential reports on commit ${found.commitSha} only.`);
  }
  if (report.runId !== undefined && report.runId !== found.runId) {
    throw new Refusal("forbidden", `This credential belongs to workflow run ${found.runId} only.`);
  }
  await inTenant(connect, found.orgId, async (tx) => {
    const [organization] = await tx
      .select({ suspended: sql<boolean>`${organizations.suspendedAt} IS NOT NULL` })
      .from(organizations)
      .where(eq(organizations.id, found.orgId));
    if (organization?.suspended) {
      throw organizationSuspended("This organization is suspended, so its checks are not reported for now; report again later.");
    }
    // A taking left by a report that never finished (its Worker gone) lapses after TAKING_LAPSES.
    const { rowCount } = await tx
      .update(prCredentials)
      .set({ reportedAt: sql`now()` })
      .where(
        and(
          eq(prCredentials.id, found.id),
          sql`(${prCredentials.reportedAt} IS NULL OR (${prCredentials.checkRunId} IS NULL AND ${prCredentials.reportedAt} < now() - ${TAKING_LAPSES}))`,
        ),
      );
    if (!rowCount) throw ALREADY_REPORTED(found.commitSha, found.runId);
  });
  try {
    const checkRun = await createCheckRun(tenantTransaction(connect, found.orgId), codehost, found, report);
    return await inTenant(connect, found.orgId, async (tx) => {
      await tx
        .update(prCredentials)
        .set({ reportedAt: sql`now()`, conclusion: report.conclusion, checkRunId: checkRun.id, checkUrl: checkRun.url })
        .where(eq(prCredentials.id, found.id));
      return { repository: found.repository, commit: found.commitSha, conclusion: report.conclusion, checkRunId: checkRun.id, url: checkRun.url };
    });
  } catch (error) {
    await inTenant(connect, found.orgId, (tx) =>
      tx
        .update(prCredentials)
        .set({ reportedAt: null })
        .where(and(eq(prCredentials.id, found.id), isNull(prCredentials.checkRunId))),
    );
    throw error;
  }
}

/** Longer than the two code-host calls of a report can take (10 seconds each at most). */
const TAKING_LAPSES = sql`interval '1 minute'`;

/** The check run, created at the code host as the App (no transaction open); a refusal says why not. */
async function createCheckRun(
  transaction: Transaction,
  codehost: CodehostConfig,
  found: CredentialRow,
  report: Report,
): Promise<{ id: number; url: string | null }> {
  const access = await appAccessTo(transaction, codehost, ownerOf(found.repository));
  if (!access.ok) throw new Refusal("codehost_refused", access.reason);
  let answer: Awaited<ReturnType<typeof callCodehost>>;
  try {
    answer = await callCodehost(codehost.apiBase, "POST", `/repos/${found.repository.split("/").map(encodeURIComponent).join("/")}/check-runs`, access.token, {
      name: report.name,
      head_sha: found.commitSha,
      status: "completed",
      conclusion: report.conclusion,
      completed_at: new Date().toISOString(),
      external_id: `${found.runId}/${found.runAttempt}`,
      output: { title: report.title, summary: report.summary },
    });
  } catch (error) {
    if (error instanceof CodehostUnreachable)
      throw new Refusal("codehost_refused", `The code host could not be reached (${error.message}); the check was not created, report again.`);
    throw error;
  }
  const checkRun = answer.body as { id?: unknown; html_url?: unknown } | null;
  if (answer.status !== 201 || typeof checkRun?.id !== "number") {
    throw new Refusal("codehost_refused", `The code host did not create the check on ${found.commitSha} (${describeAnswer(answer)}); report again.`);
  }
  return { id: checkRun.id, url: typeof checkRun.html_url === "string" ? checkRun.html_url : null };
}

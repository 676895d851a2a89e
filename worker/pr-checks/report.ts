// POST /v1/pr/report: the commit credential's one report, made into a check run on its commit at the
// code host, as the App, while the repository claim it came through is live. The credential is taken
// (reported_at set) in a short transaction before the code host is asked, so two reports at once make
// one check without a transaction held across the call; a refused check gives it back, unspent, to
// report again.
import { actAs, inTenant, inTransaction, tenantTransaction, type Connection, type Transaction } from "../../db/transaction";
import type { CodehostConfig } from "../config/types";
import { appAccessTo } from "../codehost/app-access";
import { callCodehost, CodehostUnreachable, describeAnswer } from "../codehost/codehost-api";
import { ownerOf } from "../codehost/repository";
import { SUSPENDED_RETRY_SECONDS } from "../auth/bearer";
import { Refusal } from "../http/refusal";
import { hashToken } from "../tokens/secret";
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

interface CredentialRow {
  id: string;
  org_id: string;
  repository: string;
  commit_sha: string;
  run_id: string;
  run_attempt: number;
  live: boolean;
  reported_at: Date | null;
  binding_id: string | null;
}

/**
 * The live credential behind `credential`, or the 401 that says why there is none: unknown, expired,
 * or its repository claim revoked (or never proven) since it was issued: it dies with the claim.
 */
export async function findCredential(connect: () => Promise<Connection>, credential: string): Promise<CredentialRow> {
  const tokenHash = await hashToken(credential);
  const found = await inTransaction(connect, { lookups: { token_hash: tokenHash } }, async (tx) => {
    const row = (
      await tx.sql.query<CredentialRow>(
        "SELECT id, org_id, repository, commit_sha, run_id, run_attempt, expires_at > now() AS live, reported_at, binding_id FROM pr_credentials WHERE token_hash = $1",
        [tokenHash],
      )
    ).rows[0];
    if (!row) return null;
    await actAs(tx, row.org_id);
    const claim = await tx.sql.query<{ live: boolean }>("SELECT revoked_at IS NULL AND proof IS NOT NULL AS live FROM repository_claims WHERE id = $1", [
      row.binding_id,
    ]);
    return { row, claimLive: claim.rows[0]?.live === true };
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
  if (report.commit !== undefined && report.commit !== found.commit_sha) {
    throw new Refusal("forbidden", `This credential reports on commit ${found.commit_sha} only.`);
  }
  if (report.runId !== undefined && report.runId !== found.run_id) {
    throw new Refusal("forbidden", `This credential belongs to workflow run ${found.run_id} only.`);
  }
  await inTenant(connect, found.org_id, async (tx) => {
    const organization = await tx.sql.query<{ suspended: boolean }>("SELECT suspended_at IS NOT NULL AS suspended FROM organizations WHERE id = $1", [
      found.org_id,
    ]);
    if (organization.rows[0]?.suspended) {
      throw new Refusal(
        "organization_suspended",
        "This organization is suspended, so its checks are not reported for now; report again later.",
        SUSPENDED_RETRY_SECONDS,
      );
    }
    // A taking left by a report that never finished (its Worker gone) lapses after TAKING_LAPSES.
    const { rowCount } = await tx.sql.query(
      `UPDATE pr_credentials SET reported_at = now() WHERE id = $1
         AND (reported_at IS NULL OR (check_run_id IS NULL AND reported_at < now() - interval '${TAKING_LAPSES}'))`,
      [found.id],
    );
    if (!rowCount) throw ALREADY_REPORTED(found.commit_sha, found.run_id);
  });
  try {
    const checkRun = await createCheckRun(tenantTransaction(connect, found.org_id), codehost, found, report);
    return await inTenant(connect, found.org_id, async (tx) => {
      await tx.sql.query("UPDATE pr_credentials SET reported_at = now(), conclusion = $2, check_run_id = $3, check_url = $4 WHERE id = $1", [
        found.id,
        report.conclusion,
        checkRun.id,
        checkRun.url,
      ]);
      return { repository: found.repository, commit: found.commit_sha, conclusion: report.conclusion, checkRunId: checkRun.id, url: checkRun.url };
    });
  } catch (error) {
    await inTenant(connect, found.org_id, (tx) =>
      tx.sql.query("UPDATE pr_credentials SET reported_at = NULL WHERE id = $1 AND check_run_id IS NULL", [found.id]),
    );
    throw error;
  }
}

/** Longer than the two code-host calls of a report can take (10 seconds each at most). */
const TAKING_LAPSES = "1 minute";

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
      head_sha: found.commit_sha,
      status: "completed",
      conclusion: report.conclusion,
      completed_at: new Date().toISOString(),
      external_id: `${found.run_id}/${found.run_attempt}`,
      output: { title: report.title, summary: report.summary },
    });
  } catch (error) {
    if (error instanceof CodehostUnreachable)
      throw new Refusal("codehost_refused", `The code host could not be reached (${error.message}); the check was not created, report again.`);
    throw error;
  }
  const checkRun = answer.body as { id?: unknown; html_url?: unknown } | null;
  if (answer.status !== 201 || typeof checkRun?.id !== "number") {
    throw new Refusal("codehost_refused", `The code host did not create the check on ${found.commit_sha} (${describeAnswer(answer)}); report again.`);
  }
  return { id: checkRun.id, url: typeof checkRun.html_url === "string" ? checkRun.html_url : null };
}

// Shapes of POST /v1/pr/callback-token and POST /v1/pr/report (spec: Other control plane routes).
import * as z from "zod";
import { NOT_BOUND_REASONS } from "../codehost";
import { storable, text } from "../http/text";

export const CommitSha = storable(z.string().regex(/^[0-9a-f]{40}$/, "must be a commit's 40 lower-case hexadecimal digits"));

export const CommitCredentialRequest = z
  .object({
    token: text({ min: 1, max: 16_384 }).describe("A workflow identity token minted for the audience GET /v1/oidc/bindings returns."),
    pullRequest: z
      .int()
      .min(1)
      .max(2_147_483_647)
      .optional()
      .describe(
        "The pull request the check is for, when the token's ref does not name it (a pull_request_target run). The credential is then bound to the pull request's head commit.",
      ),
  })
  .meta({ id: "CommitCredentialRequest" });

export const CommitCredential = z
  .strictObject({
    token: z.string().describe("The commit credential: a bearer for POST /v1/pr/report, returned once, stored only as a hash."),
    expires_at: z.iso.datetime().describe("55 minutes after it was made (under the hour)."),
    repository: z.string().describe("`owner/name`."),
    commit: z.string().describe("The one commit the credential reports on."),
    run_id: z.string().describe("The one workflow run the credential belongs to (the identity token's run_id)."),
    run_attempt: z.int(),
    pull_request: z.int().nullable(),
    fork: z.boolean().describe("The commit comes from a fork's pull request (and a maintainer approved it)."),
  })
  .meta({ id: "CommitCredential" });

export const COMMIT_CREDENTIAL_REFUSALS = [...NOT_BOUND_REASONS, "fork_commit_not_approved"] as const;

export const CommitCredentialRefused = z
  .strictObject({ error: z.string().describe("What to do, as a sentence."), reason: z.enum(COMMIT_CREDENTIAL_REFUSALS) })
  .meta({ id: "CommitCredentialRefused" });

export const CHECK_CONCLUSIONS = ["success", "failure", "neutral", "cancelled", "skipped", "timed_out", "action_required"] as const;

export const PullRequestReport = z
  .object({
    conclusion: z.enum(CHECK_CONCLUSIONS),
    title: text({ min: 1, max: 200 }).describe("The check's one-line result."),
    summary: text({ min: 1, max: 65_535 }).describe("Markdown shown on the check."),
    name: text({ min: 1, max: 100 }).default("svc").describe("The check's name on the pull request."),
    commit: CommitSha.optional().describe("If given, must be the credential's commit: a credential reports on no other."),
    runId: text({ min: 1, max: 40 }).optional().describe("If given, must be the credential's workflow run."),
  })
  .meta({ id: "PullRequestReport" });

export const PullRequestReported = z
  .strictObject({
    repository: z.string(),
    commit: z.string(),
    conclusion: z.enum(CHECK_CONCLUSIONS),
    checkRunId: z.int().describe("The check run the code host created on the commit."),
    url: z.string().nullable().describe("Where the code host shows the check."),
  })
  .meta({ id: "PullRequestReported" });

// POST /v1/pr/callback-token and POST /v1/pr/report (spec: Other control plane routes, /v1/pr/*).
import type { Hono, MiddlewareHandler } from "hono";
import { IdentityUnverified } from "../repository-claims";
import { admitWorkflowIdentity, verifyWorkflowIdentity } from "../codehost";
import type { AppEnv } from "../http/context";
import { BODY_LIMITS } from "../http/input";
import { refusal, register, route, serverFailure } from "../openapi/declaration";
import { issueCommitCredential } from "./credential";
import { presentedCredential, reportCheck } from "./report";
import { CommitCredential, CommitCredentialRefused, CommitCredentialRequest, PullRequestReport, PullRequestReported } from "./schemas";

/**
 * Authenticate before validating: a body of declared length within the limit that carries a token has
 * it verified before the rest of the body is checked, so a stranger with no valid identity learns
 * nothing of the body's shape (401 before 400). A body without a token is the hook's 400.
 */
const identityFirst: MiddlewareHandler<AppEnv> = async (c, next) => {
  const declared = Number(c.req.header("content-length") ?? 0);
  if (declared > 0 && declared <= BODY_LIMITS.default) {
    let token: unknown;
    try {
      token = (JSON.parse(await c.req.raw.clone().text()) as { token?: unknown } | null)?.token;
    } catch {
      // Not JSON: the hook answers it.
    }
    if (typeof token === "string" && token !== "") await verifyWorkflowIdentity(c, token);
  }
  await next();
};

const callbackToken = route({
  method: "post",
  path: "/v1/pr/callback-token",
  operationId: "requestCommitCredential",
  summary: "Exchange a workflow identity token for a commit credential: one commit, one run, under an hour",
  description:
    "No header authentication: the body carries a workflow identity token, verified and admitted exactly like POST /v1/auth/codehost-oidc " +
    "(signature, issuer, audience, expiry, the repository's claim, one exchange per token id; the same per-repository rate limit). " +
    "The credential is bound to the token's commit (`sha`) and workflow run (`run_id`, `run_attempt`); for a pull request (named by the " +
    "token's `refs/pull/<n>/merge` ref, or by `pullRequest`) to the pull request's head commit, as the code host reports it to the App. " +
    "A fork pull request's commit is refused (403 `fork_commit_not_approved`) until a person with tokens.manage approves that exact commit " +
    "in the console; the refused commit is listed there as waiting. A commit and run whose check was already reported answer 409.",
  tag: "pull-request checks",
  // Reports on work a workflow already ran, like the identity exchange it builds on.
  gate: "reachable",
  middleware: [identityFirst],
  body: CommitCredentialRequest,
  responses: {
    200: { description: "A commit credential, returned once", schema: CommitCredential },
    400: refusal("Body not JSON, or no token"),
    401: { description: "The identity did not verify, or names no commit or run; `reason` says why", schema: IdentityUnverified },
    403: { description: "The identity grants nothing here, or the fork commit is not approved; `reason` says which", schema: CommitCredentialRefused },
    409: refusal("This commit's check for this run was already reported"),
    429: refusal("Too many exchanges for this repository", { "Retry-After": "Seconds to wait before exchanging again" }),
    500: serverFailure,
    502: refusal("The code host did not let the App read the pull request"),
  },
  handler: async (c, { body, reply }) => {
    const verified = await admitWorkflowIdentity(c, body.token);
    const issued = await issueCommitCredential(c.var.database().connect, c.var.config.codehost, verified.identity, verified.claims, body.pullRequest);
    return reply(200, {
      token: issued.token,
      expires_at: issued.expiresAt.toISOString(),
      repository: issued.repository,
      commit: issued.commit,
      run_id: issued.runId,
      run_attempt: issued.runAttempt,
      pull_request: issued.pullRequest,
      fork: issued.fork,
    });
  },
});

const report = route({
  method: "post",
  path: "/v1/pr/report",
  operationId: "reportPullRequestCheck",
  summary: "Report a pull-request check once, as a check run on the credential's commit",
  description:
    "Bearer: the commit credential from POST /v1/pr/callback-token. Creates a completed check run on the credential's commit at the " +
    "code host, as the App, named `name`. A credential reports once: a second report is 409. Naming another `commit` or `runId` " +
    "than the credential's is 403. When the code host refuses the check (502) the credential is not spent.",
  tag: "pull-request checks",
  security: ["commitCredential"],
  // Reports on work a workflow already ran, like the identity exchange it builds on.
  gate: "reachable",
  body: PullRequestReport,
  responses: {
    201: { description: "The check run the code host created", schema: PullRequestReported },
    400: refusal("Body not JSON, or a field missing or of the wrong shape"),
    401: refusal("No credential, an unknown one, an expired one, or one whose repository claim was revoked since (it died with the claim)"),
    403: refusal("The report names another commit or run than the credential's, or the organization is suspended (with retryAfterSeconds)"),
    409: refusal("This credential already reported"),
    500: serverFailure,
    502: refusal("The code host did not create the check; the credential is not spent"),
  },
  handler: async (c, { body, reply }) => reply(201, await reportCheck(c.var.database().connect, c.var.config.codehost, presentedCredential(c), body)),
});

export function registerPullRequestChecks(app: Hono<AppEnv>): void {
  register(app, callbackToken);
  register(app, report);
}

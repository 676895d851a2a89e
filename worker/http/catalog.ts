// The one error catalog: every refusal and failure the service answers is one of these codes. It
// serves the responses (status, message) and is published as errors.v1.json.
export interface CatalogEntry {
  status: number;
  /** The default sentence shown to a person; a route may give a more precise one. */
  message: string;
  resolution: string;
  /** Whether sending the same request again can succeed without changing anything. */
  retrySafe: boolean;
  /**
   * Exit status of the `svc` command line when it stops for this reason: the operator's start-up checks
   * (1, 2), and the refusals the people's commands meet (cli/people/); a code without one exits 1.
   */
  exitStatus?: number;
}

export const ERROR_CATALOG = {
  invalid_json: {
    status: 400,
    message: "The request body is not valid JSON.",
    resolution: "Send a JSON document with the content type application/json.",
    retrySafe: false,
    exitStatus: 65,
  },
  invalid_request: {
    status: 400,
    message: "The request is missing a field or has a field of the wrong shape.",
    resolution: "Correct the request as the message describes; the OpenAPI description at /openapi.json gives every shape.",
    retrySafe: false,
    exitStatus: 65,
  },
  unauthenticated: {
    status: 401,
    message: "The credential is missing, unknown, expired or revoked.",
    resolution: "Send a valid token as an HTTP bearer, or sign in again.",
    retrySafe: false,
    exitStatus: 3,
  },
  identity_unverified: {
    status: 401,
    message: "The workflow identity token did not verify.",
    resolution:
      "Read `reason`: request a fresh identity token for this service's audience from a workflow allowed to request identity tokens, and exchange it once.",
    retrySafe: false,
  },
  signature_invalid: {
    status: 401,
    message: "The delivery's signature is missing, malformed or does not match.",
    resolution:
      "Sign the raw body with HMAC-SHA256 under the shared webhook secret, as the sender's scheme says (X-Hub-Signature-256 for the code host, Stripe-Signature with a timestamp for billing).",
    retrySafe: false,
  },
  csrf_failed: {
    status: 403,
    message: "The request's CSRF token is missing or does not match the session.",
    resolution: "Send the token from GET /auth/session in the x-svc-csrf header.",
    retrySafe: false,
  },
  forbidden: {
    status: 403,
    message: "The credential does not carry the permission this needs.",
    resolution: "Ask an owner or admin for the permission, or use a token with the needed scope.",
    retrySafe: false,
    exitStatus: 4,
  },
  organization_suspended: {
    status: 403,
    message: "The organization is suspended, so this is refused for now.",
    resolution: "Keep the request and send it again after retryAfterSeconds; an owner can see why in the console.",
    retrySafe: true,
    exitStatus: 5,
  },
  identity_not_bound: {
    status: 403,
    message: "The workflow identity verified, but no organization's claim lets this repository mint engine tokens.",
    resolution: "Read `reason`: an owner or admin claims the repository with the CLI (tokens.manage), or installs the App on its owner.",
    retrySafe: false,
  },
  claim_proof_required: {
    status: 403,
    message: "The claim is pending: nothing shows yet that this organization controls the repository.",
    resolution:
      "Run a workflow of the repository that exchanges an identity token minted for the one-time audience the message names, or install the App on the repository's owner and claim again.",
    retrySafe: false,
    exitStatus: 6,
  },
  plan_required: {
    status: 402,
    message: "The organization's plan does not include what this needs.",
    resolution:
      "An owner subscribes to the plan the message names on the console's Billing page; billing, data export, deletion and sessions stay reachable meanwhile.",
    retrySafe: false,
    exitStatus: 7,
  },
  licence_required: {
    status: 402,
    message: "The enterprise licence does not permit this feature.",
    resolution:
      "Read `feature` and `licence`: the operator installs a licence (SVC_LICENSE_KEY, for SVC_ORG) that lists the feature and is valid, or renews an expired or revoked one.",
    retrySafe: false,
  },
  not_found: {
    status: 404,
    message: "Nothing is here.",
    resolution: "Check the address and the identifier; another organization's resources answer like missing ones.",
    retrySafe: false,
    exitStatus: 8,
  },
  claim_held_elsewhere: {
    status: 409,
    message: "Another organization holds a claim on this repository.",
    resolution: "Retrying never helps: the other organization must revoke its claim before this one can claim the repository.",
    retrySafe: false,
    exitStatus: 9,
  },
  export_not_ready: {
    status: 409,
    message: "The export is not built yet.",
    resolution: "Try again later: the organization's deletion takes the export after its paid period ends; the console shows its progress.",
    retrySafe: true,
  },
  lease_not_held: {
    status: 409,
    message: "The caller does not hold the lease on this.",
    resolution: "Another engine holds it or it ended: stop working on it; claim again for new work.",
    retrySafe: false,
  },
  last_owner: {
    status: 409,
    message: "This would leave an organization without an owner.",
    resolution: "Make someone else an owner first; then the change can be made.",
    retrySafe: false,
  },
  already_exists: {
    status: 409,
    message: "Something with this name or address already exists here.",
    resolution: "Use another name, or act on the one that exists (the message names it).",
    retrySafe: false,
  },
  state_conflict: {
    status: 409,
    message: "What this acts on is not in a state that allows it (already done, ended, archived or torn down).",
    resolution: "Read the message: it names the state and what to do instead; sending the same request again does not help.",
    retrySafe: false,
  },
  payload_too_large: {
    status: 413,
    message: "The request is larger than the limit allows: too many bytes or too many items.",
    resolution: "Split it into smaller requests within the documented limits (README: Limits; body sizes in /openapi.json).",
    retrySafe: false,
  },
  unsupported_media_type: {
    status: 415,
    message: "The body's content type is not one this endpoint reads.",
    resolution: "Send the console's procedures a JSON body with the content type application/json.",
    retrySafe: false,
  },
  rate_limited: {
    status: 429,
    message: "Too many requests; slow down.",
    resolution: "Wait the number of seconds in the Retry-After header, then send the request again.",
    retrySafe: true,
  },
  webhook_not_configured: {
    status: 503,
    message: "This service has no webhook secret for the sender, so it cannot accept deliveries.",
    resolution:
      "The operator sets the sender's credentials: the App's (SVC_CODEHOST_APP_ID, SVC_CODEHOST_APP_PRIVATE_KEY, SVC_CODEHOST_APP_WEBHOOK_SECRET) or billing's (SVC_BILLING_SECRET_KEY, SVC_BILLING_WEBHOOK_SECRET, SVC_BILLING_PRICE_TEAM).",
    retrySafe: true,
  },
  operator_portal_off: {
    status: 503,
    message: "The operator portal is off: SVC_ADMIN_DATABASE_URL is not set.",
    resolution: "The operator sets SVC_ADMIN_DATABASE_URL to the operator role's connection string.",
    retrySafe: false,
  },
  model_unpriced: {
    status: 400,
    message: "The model proxy has no price for this model, so it cannot keep the request within a budget.",
    resolution:
      "Use a model with a built-in price, or have the operator add one to SVC_MODEL_PRICES (`<model>=<input>/<output>` US dollars per million tokens).",
    retrySafe: false,
  },
  provider_key_missing: {
    status: 412,
    message: "The organization has no key stored for this model provider.",
    resolution:
      "An owner or admin stores the provider's key on the console's providers page (or with the CLI's provider command), then the request can be sent again.",
    retrySafe: false,
  },
  not_configured: {
    status: 412,
    message: "This installation is not set up for this.",
    resolution: "The message names what the operator configures (a billing provider, the export storage, operator-set plans); until then this is refused.",
    retrySafe: false,
  },
  billing_account_missing: {
    status: 412,
    message: "This organization has no billing account yet.",
    resolution: "An owner subscribes to a plan on the console's Billing page first; the customer portal opens after that.",
    retrySafe: false,
  },
  plan_not_for_sale: {
    status: 412,
    message: "This plan is agreed with a person, not bought at checkout.",
    resolution: "Contact us to set the plan up; checkout sells the other plans.",
    retrySafe: false,
  },
  repository_not_claimed: {
    status: 412,
    message: "The organization has claimed no repository, so there is nowhere to open the pull request.",
    resolution: "An owner or admin claims the repository with the CLI (tokens.manage), then the proposal is made again.",
    retrySafe: false,
  },
  member_list_unavailable: {
    status: 412,
    message: "The code host gave no member list to sync from, so nothing was changed.",
    resolution: "Read the message: when the code host did not answer, sync again; when the App cannot act on the account, install or unsuspend it there first.",
    retrySafe: true,
  },
  budget_exceeded: {
    status: 402,
    message: "This request could cost more than is left of the organization's monthly budget for the provider.",
    resolution: "Ask for fewer output tokens, wait for the next month (UTC), or have an owner raise the provider's monthly budget.",
    retrySafe: false,
  },
  provider_unreachable: {
    status: 502,
    message: "The model provider could not be reached.",
    resolution: "Try again in a moment; nothing was charged to the budget.",
    retrySafe: true,
  },
  sealing_key_missing: {
    status: 503,
    message: "This installation has no sealing key for model-provider keys, so none can be stored or opened.",
    resolution:
      "The operator sets SVC_PROVIDER_KEY_SECRET (or SVC_PROVIDER_KEY_SECRETS with SVC_PROVIDER_KEY_VERSION), keeping every version that sealed a stored key until `svc reseal` has moved them.",
    retrySafe: true,
  },
  origin_not_allowed: {
    status: 403,
    message: "Cross-origin requests here are accepted only from the site's own origins.",
    resolution: "Send the form from the site; an operator lists the site's exact origins in SVC_SITE_ORIGIN.",
    retrySafe: false,
  },
  analytics_upstream_failed: {
    status: 502,
    message: "The analytics vendor could not be reached, or answered with a redirect, which is not followed.",
    resolution: "Nothing to do: analytics are best effort and the page works without them.",
    retrySafe: true,
  },
  // Pull-request checks (/v1/pr/*).
  fork_commit_not_approved: {
    status: 403,
    message: "This commit comes from a fork's pull request and no maintainer has approved it.",
    resolution:
      "A person with tokens.manage approves this exact commit on the console's Proposals page; then request the credential again. A new commit needs its own approval.",
    retrySafe: false,
  },
  already_reported: {
    status: 409,
    message: "This commit's check for this workflow run was already reported.",
    resolution: "Nothing to do: a pull-request check reports once per commit and run. A new run gets a new credential.",
    retrySafe: false,
  },
  codehost_refused: {
    status: 502,
    message: "The code host refused or did not answer what this needed.",
    resolution: "The message quotes the code host's answer; fix what it names (the App's installation or permissions) and try again.",
    retrySafe: true,
  },
  billing_refused: {
    status: 502,
    message: "The billing provider refused or did not answer what this needed.",
    resolution: "Nothing was started; the message quotes the provider's answer. Try again, or have the operator check the billing provider's settings.",
    retrySafe: true,
  },
  internal_error: {
    status: 500,
    message: "Something went wrong on our side.",
    resolution: "Try again; if it keeps happening, report the requestId to support.",
    retrySafe: true,
  },
  database_unavailable: {
    status: 500,
    message: "The service could not reach its database.",
    resolution:
      "Retry with backoff (say 200 ms doubling to 30 s): a retried batch of events is never stored twice, and claims (with their claimId) and heartbeats are safe to send again. /readyz answers 200 when the database is back.",
    retrySafe: true,
  },
  config_invalid: {
    status: 500,
    message: "The service's configuration is invalid, so it refuses to start.",
    resolution: "Run `npm run --silent svc -- config check` and correct every variable it names.",
    retrySafe: false,
    exitStatus: 1,
  },
  licence_invalid: {
    status: 500,
    message: "The licence key cannot be read or is signed by an untrusted key.",
    resolution: "Set SVC_LICENSE_KEY to the key you were issued and SVC_LICENSE_PUBLIC_KEYS to the published keys.",
    retrySafe: false,
    exitStatus: 2,
  },
} as const satisfies Record<string, CatalogEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOG;
/** Every status the catalog answers with; a transport adapter maps each one (worker/trpc/errors.ts). */
export type CatalogStatus = (typeof ERROR_CATALOG)[ErrorCode]["status"];

/** The published form (errors.v1.json). */
export function catalogDocument(docsBase = "/docs/errors") {
  return {
    version: 1,
    errors: Object.entries(ERROR_CATALOG).map(([code, entry]: [string, CatalogEntry]) => ({
      code,
      status: entry.status,
      message: entry.message,
      recovery: entry.resolution,
      retrySafe: entry.retrySafe,
      documentation: `${docsBase}#${code}`,
      exitStatus: entry.exitStatus ?? null,
    })),
  };
}

// The identity exchange after the token verified: the organization comes from the repository's
// claim (created here from the organization's App installation when there is exactly one), never
// from the token; then one engine token is minted through the claim.
import { inTenant, inTransaction, type Connection, type Tx, actAs } from "../../db/transaction";
import { appendAudit } from "../audit/append";
import { issueToken } from "../tokens/issue";
import { findClaim, insertClaim, useClaim, type Claim } from "./claims";
import { IdentityRefusal } from "./identity-refusal";
import { installationsOnAccount } from "./installations";
import { CLOCK_TOLERANCE_SECONDS, type WorkflowIdentity } from "./oidc-verify";
import { ownerOf, repositoryKey } from "./repository";

/** Spec, Limits: an engine token from identity exchange lives 15 minutes. */
const EXCHANGED_TOKEN_LIFETIME_MS = 15 * 60_000;

export interface Exchanged {
  token: string;
  expiresAt: Date;
  orgId: string;
  repository: string;
}

export async function exchangeIdentity(connect: () => Promise<Connection>, identity: WorkflowIdentity): Promise<Exchanged> {
  const claim = await claimFor(connect, identity);
  return inTenant(connect, claim.orgId, async (tx) => {
    await admitIdentity(tx, claim, identity);
    const expiresAt = new Date(Date.now() + EXCHANGED_TOKEN_LIFETIME_MS);
    const issued = await issueToken(tx, {
      orgId: claim.orgId,
      kind: "engine",
      name: `workflow identity of ${identity.repository}`,
      expiresAt,
      bindingId: claim.id,
    });
    return { token: issued.token, expiresAt, orgId: claim.orgId, repository: identity.repository };
  });
}

/**
 * In a transaction acting as the claim's organization: the identity may act through the claim (its
 * installation not suspended, the claim live and pinned to this very repository and owner), and the
 * token's id is spent, so one identity token is exchanged once (also used by /v1/pr/callback-token).
 */
export async function admitIdentity(tx: Tx, claim: Claim, identity: WorkflowIdentity): Promise<void> {
  await refuseSuspendedInstallation(tx, identity);
  const pinned = await useClaim(tx, claim.id, identity);
  if (!pinned) throw revoked(identity.repository);
  if (pinned.repositoryId !== identity.repositoryId || pinned.ownerId !== identity.ownerId) {
    throw new IdentityRefusal(
      "no_binding",
      `${identity.repository} is not the repository that was claimed under this name (it was deleted and recreated, or moved); ` +
        "an owner or admin can revoke the claim and claim the repository again.",
    );
  }
  if (!(await spendTokenId(tx, identity))) {
    throw new IdentityRefusal("expired", "This identity token was already exchanged; request a new identity token for each exchange.");
  }
}

const revoked = (repository: string) =>
  new IdentityRefusal("binding_revoked", `The claim on ${repository} was revoked; an owner or admin can claim it again with the CLI.`);

/** The live claim on the repository, created from the owner's App installation when nobody claimed it yet. */
export async function claimFor(connect: () => Promise<Connection>, identity: WorkflowIdentity): Promise<Claim> {
  const owner = ownerOf(identity.repository);
  const lookups = { claim_repository: repositoryKey(identity.repository), installation_account_id: identity.ownerId };
  return inTransaction(connect, { lookups }, async (tx) => {
    const claim = await findClaim(tx, { repository: identity.repository });
    // A revoked claim is not silently replaced from the installation: revoking was a decision.
    if (claim?.revokedAt) throw revoked(identity.repository);
    if (claim) return claim;

    // Only installations on this very account: an account deleted and its login taken by someone else
    // has another id.
    const installations = await installationsOnAccount(tx, identity.ownerId);
    const live = installations.filter((row) => !row.suspended);
    const organizations = new Set(live.map((row) => row.orgId));
    if (organizations.size > 1) {
      throw new IdentityRefusal(
        "no_binding",
        `More than one organization has installed the App on ${owner}, so ${identity.repository} is not claimed automatically; ` +
          "an owner or admin of the right organization must claim it with the CLI.",
      );
    }
    const installation = live[0];
    if (!installation) {
      if (installations.length > 0) throw suspended(owner);
      throw new IdentityRefusal(
        "no_binding",
        `No organization has claimed ${identity.repository}; an owner or admin can claim it with the CLI, or install the App on ${owner}.`,
      );
    }
    await actAs(tx, installation.orgId);
    const created = await insertClaim(tx, {
      orgId: installation.orgId,
      repository: identity.repository,
      source: "installation",
      installationId: installation.id,
      repositoryId: identity.repositoryId,
      ownerId: identity.ownerId,
    });
    // Another exchange created it a moment ago: use that one.
    if (!created) return (await findClaim(tx, { repository: identity.repository }))!;
    await appendAudit(tx, {
      orgId: installation.orgId,
      action: "repository_claim.created",
      actorLabel: `code-host App installation ${installation.codehostInstallationId}`,
      target: created.id,
      data: { repository: created.repository, source: "installation" },
    });
    return created;
  });
}

const suspended = (owner: string) =>
  new IdentityRefusal("installation_suspended", `The App installation on ${owner} is suspended; an owner of ${owner} must unsuspend it on the code host.`);

/** The claiming organization installed the App on the owner and suspended every such installation. */
async function refuseSuspendedInstallation(tx: Tx, identity: WorkflowIdentity): Promise<void> {
  const owner = ownerOf(identity.repository);
  const installations = await installationsOnAccount(tx, identity.ownerId);
  if (installations.length > 0 && installations.every((row) => row.suspended)) throw suspended(owner);
}

/**
 * Records the token's id until the token could no longer verify; false when it was recorded already
 * (a replay). Expired ids are pruned on the way, so the table holds only ids that could still verify.
 */
async function spendTokenId(tx: Tx, identity: WorkflowIdentity): Promise<boolean> {
  const { rowCount } = await tx.sql.query(
    `WITH pruned AS (DELETE FROM used_identity_tokens WHERE expires_at < now())
     INSERT INTO used_identity_tokens (jti, expires_at) VALUES ($1, to_timestamp($2)) ON CONFLICT DO NOTHING`,
    [identity.jti, identity.expiresAt + CLOCK_TOLERANCE_SECONDS],
  );
  return rowCount === 1;
}

// The identity exchange after the token verified: the organization comes from the repository's
// claim (created here from the organization's App installation when there is exactly one, or completed
// here by a token minted for a pending claim's one-time audience), never from the token; then one
// engine token is minted through the claim.
import { sql } from "drizzle-orm";
import { inTenant, inTransaction, type Connection, type Tx } from "../../db/transaction";
import { actAs } from "../../db/acting";
import { issueToken } from "../tokens";
import { claimProofLookup, findClaimProof, spendClaimProof } from "./proofs";
import { establishClaim, findClaim, useClaim, type Claim } from "./store";
import { IdentityRefusal } from "../codehost";
import { installationsOnAccount } from "../codehost";
import { CLOCK_TOLERANCE_SECONDS, type WorkflowIdentity } from "../codehost";
import { ownerOf, repositoryKey } from "../http/repository-name";

/** Spec, Limits: an engine token from identity exchange lives 15 minutes. */
const EXCHANGED_TOKEN_LIFETIME_MS = 15 * 60_000;

export interface Exchanged {
  token: string;
  expiresAt: Date;
  orgId: string;
  repository: string;
}

/** `proofAudience`: the one-time audience the token was minted for, when it completes a pending claim. */
export async function exchangeIdentity(connect: () => Promise<Connection>, identity: WorkflowIdentity, proofAudience: string | null): Promise<Exchanged> {
  const claim = proofAudience ? await completeClaim(connect, identity, proofAudience) : await claimFor(connect, identity);
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

/**
 * The live, proven claim on the repository; with none, created from the owner's App installation when
 * exactly one organization holds a live one on that very account (by id). An unproven claim (made
 * before claims needed proof) mints nothing: it gives way to that installation's organization, or
 * refuses.
 */
export async function claimFor(connect: () => Promise<Connection>, identity: WorkflowIdentity): Promise<Claim> {
  const owner = ownerOf(identity.repository);
  const lookups = { claim_repository: repositoryKey(identity.repository), installation_account_id: identity.ownerId };
  return inTransaction(connect, { lookups }, async (tx) => {
    const claim = await findClaim(tx, { repository: identity.repository });
    // A revoked claim is not silently replaced from the installation: revoking was a decision.
    if (claim?.revokedAt) throw revoked(identity.repository);
    if (claim?.proof) return claim;

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
      if (claim) throw unproven(identity.repository);
      throw new IdentityRefusal(
        "no_binding",
        `No organization has claimed ${identity.repository}; an owner or admin can claim it with the CLI, or install the App on ${owner}.`,
      );
    }
    await actAs(tx, installation.orgId);
    const established = await establishClaim(
      tx,
      {
        orgId: installation.orgId,
        repository: identity.repository,
        source: "installation",
        proof: "installation",
        installationId: installation.id,
        repositoryId: identity.repositoryId,
        ownerId: identity.ownerId,
      },
      { label: `code-host App installation ${installation.codehostInstallationId}` },
    );
    // Another exchange created it a moment ago: use that one.
    return "heldElsewhere" in established ? established.heldElsewhere : established.claim;
  });
}

const unproven = (repository: string) =>
  new IdentityRefusal(
    "no_binding",
    `The claim on ${repository} was made before claims needed proof, so it mints nothing; an owner or admin of the organization ` +
      "that holds it proves it by claiming the repository again with the CLI (POST /v1/oidc/bindings).",
  );

/**
 * The claim a one-time audience completes: the pending claim it was shown for, on exactly the
 * identity's repository and not expired, becomes active, pinned to the identity's ids (or an unproven
 * claim of the same organization is proven). The audience is spent.
 */
export async function completeClaim(connect: () => Promise<Connection>, identity: WorkflowIdentity, audience: string): Promise<Claim> {
  const lookups = { ...(await claimProofLookup(audience)), claim_repository: repositoryKey(identity.repository) };
  return inTransaction(connect, { lookups }, async (tx) => {
    const pending = await findClaimProof(tx, lookups.claim_proof);
    if (!pending?.live) {
      throw new IdentityRefusal(
        "no_binding",
        "This one-time claim audience is unknown, used or expired; an owner or admin claims the repository again with the CLI for a fresh one.",
      );
    }
    if (pending.repositoryKey !== repositoryKey(identity.repository)) {
      throw new IdentityRefusal(
        "no_binding",
        `This one-time audience was shown for a claim on ${pending.repository}, not ${identity.repository}; only a workflow of ${pending.repository} can complete it.`,
      );
    }
    await actAs(tx, pending.orgId);
    await spendClaimProof(tx, pending.id);
    const established = await establishClaim(
      tx,
      {
        orgId: pending.orgId,
        repository: pending.repository,
        source: "cli",
        proof: "repository",
        repositoryId: identity.repositoryId,
        ownerId: identity.ownerId,
      },
      { label: `workflow of ${identity.repository} (one-time audience)` },
    );
    if ("heldElsewhere" in established) {
      throw new IdentityRefusal("no_binding", `Another organization holds a proven claim on ${identity.repository}; this claim cannot be completed.`);
    }
    return established.claim;
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
  const { rowCount } = await tx.execute(sql`WITH pruned AS (DELETE FROM used_identity_tokens WHERE expires_at < now())
     INSERT INTO used_identity_tokens (jti, expires_at) VALUES (${identity.jti}, to_timestamp(${identity.expiresAt + CLOCK_TOLERANCE_SECONDS})) ON CONFLICT DO NOTHING`);
  return rowCount === 1;
}

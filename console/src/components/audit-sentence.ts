// An audit entry as a person reads it: who did what to what ("alice revoked token ci engine"), and its
// details in words, instead of an action code, a UUID and JSON. The code stays beside it (the cell's
// title) for whoever searches an export by it; an action this table does not know reads as its code.

type Data = Record<string, unknown> | null;

/** What each action did, given the name of what it acted on. */
const DID: Record<string, (what: string, data: Data) => string> = {
  "account.closed": () => "closed their account",
  "environment.teardown_requested": (what) => `asked for environment ${what} to be torn down`,
  "invitation.accepted": (what) => `accepted the invitation for ${what}`,
  "invitation.created": (what) => `invited ${what}`,
  "invitation.resent": (what) => `sent the invitation for ${what} again`,
  "invitation.revoked": (what) => `revoked the invitation for ${what}`,
  "member.joined": () => "joined the organization",
  "member.removed": (what) => `removed ${what}`,
  "member.role_changed": (what, data) => `changed ${what}'s role${data?.from && data?.to ? ` from ${data.from} to ${data.to}` : ""}`,
  "member.role_synced": (what, data) => `synced ${what}'s role from the code host${data?.to ? ` (now ${data.to})` : ""}`,
  "organization.created": () => "created the organization",
  "organization.deletion_called_off": () => "called off the organization's deletion",
  "organization.deletion_requested": () => "asked for the organization's deletion",
  "organization.renamed": () => "renamed the organization",
  "organization.suspended": () => "suspended the organization",
  "organization.unsuspended": () => "lifted the organization's suspension",
  "plan.changed": () => "changed the plan",
  "protocol_client.authorized": (what) => `connected the model client ${what}`,
  "protocol_client.revoked": (what) => `disconnected the model client ${what}`,
  "provider_budget.overrun": (what) => `went over the budget for ${what}`,
  "provider_budget.set": (what) => `set the budget for ${what}`,
  "provider_key.revoked": (what) => `revoked the provider key ${what}`,
  "provider_key.stored": (what) => `stored a provider key for ${what}`,
  "pull_request_commit.approved": (what) => `approved the fork's commit ${what}`,
  "repository_claim.created": (what) => `claimed the repository ${what}`,
  "repository_claim.proof_requested": (what) => `asked for proof of the claim on ${what}`,
  "repository_claim.proven": (what) => `proved the claim on ${what}`,
  "repository_claim.revoked": (what) => `revoked the claim on ${what}`,
  "repository_claim.unproven": (what) => `marked the claim on ${what} unproven`,
  "runtime.registered": (what) => `registered the runtime ${what}`,
  "runtime.removed": (what) => `removed the runtime ${what}`,
  "runtime.tagged": (what, data) => `labelled the runtime ${what}${data?.label ? ` ${data.label}` : ""}`,
  "runtime.untagged": (what, data) => `took the label${data?.label ? ` ${data.label}` : ""} off the runtime ${what}`,
  "session.signed_in": () => "signed in",
  "session.signed_out": () => "signed out",
  "session.signed_out_everywhere": () => "signed out everywhere",
  "token.created": (what) => `created the token ${what}`,
  "token.revoked": (what) => `revoked the token ${what}`,
  "workflow.dispatch_attempted": (what) => `started the workflow for ${what}`,
  "workload.archived": (what) => `archived the workload ${what}`,
  "workload.defined": (what) => `defined the workload ${what}`,
  "workload.promoted": (what) => `promoted a version of the workload ${what}`,
  "workload.version_added": (what) => `added a version to the workload ${what}`,
  "workload_run.cancel_requested": (what) => `asked to cancel the workload run ${what}`,
  "workload_run.cancelled": (what) => `cancelled the workload run ${what}`,
  "workload_run.requested": (what, data) => `started a run of ${typeof data?.workload === "string" ? data.workload : "a workload"} (${what})`,
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What an entry acted on, by name: the name (or repository) its details give, else its target (an id shortened to its first eight characters). */
function nameOf(target: string | null, data: Data): string {
  for (const key of ["name", "repository"]) if (typeof data?.[key] === "string" && data[key]) return data[key];
  if (!target) return "(unnamed)";
  return UUID.test(target) ? `${target.slice(0, 8)}…` : target;
}

/** "alice revoked the token ci engine". */
export function auditSentence(entry: { action: string; actor: string; target: string | null; data: Data }): string {
  const did = DID[entry.action];
  if (!did) return `${entry.actor}: ${entry.action}${entry.target ? ` (${entry.target})` : ""}`;
  return `${entry.actor} ${did(nameOf(entry.target, entry.data), entry.data)}`;
}

/** `clientAddress` as "client address". */
const words = (key: string) =>
  key
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replaceAll("_", " ")
    .toLowerCase();

/** The details in words: "method: github; client address: 203.0.113.9"; nested values as their JSON. */
export function auditDetails(data: Data): string {
  if (!data) return "";
  return Object.entries(data)
    .map(
      ([key, value]) =>
        `${words(key)}: ${Array.isArray(value) ? value.join(", ") : typeof value === "object" && value !== null ? JSON.stringify(value) : String(value)}`,
    )
    .join("; ");
}

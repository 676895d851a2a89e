// What the data export document holds of proposals (spec: Data export document): `maskingRules` and
// `egressPolicy` list every proposal of their kind with its decision and pull request, and `files`
// holds the masking file and the egress block in force, keyed by their paths in the repository.
import { sql } from "drizzle-orm";
import { POLICY_KINDS } from "../../db/enums";
import type { Tx } from "../../db/transaction";
import type { Section } from "./sections";
import { type ProposalKind, currentFile, toProposal, type ProposalRow } from "../proposals";

const proposalsOf = (name: string, kind: ProposalKind): Section => ({
  name,
  parts: [
    {
      key: sql`id`,
      keyOf: (row) => [row.id],
      sql: (orgId, following, limit) =>
        sql`SELECT * FROM change_proposals WHERE org_id = ${orgId} AND kind = ${kind} AND ${following} ORDER BY id LIMIT ${limit}`,
      rows: (_tx, _orgId, rows) =>
        rows.map((row) => {
          const { id: _id, mine: _mine, ...proposal } = toProposal(row as unknown as ProposalRow);
          const { attempts, branch, number, url, refusal, attemptedAt } = proposal.pullRequest;
          return { ...proposal, pullRequest: { attempts, branch, number, url, refusal, attemptedAt, state: proposal.pullRequest.state } };
        }),
    },
  ],
});

export const PROPOSAL_SECTIONS: readonly Section[] = [proposalsOf("maskingRules", "masking"), proposalsOf("egressPolicy", "egress")];

/** The `files` member: text keyed by path; a file nothing was ever approved for is left out. */
export async function exportedFiles(tx: Tx, orgId: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const kind of POLICY_KINDS) {
    const file = await currentFile(tx, orgId, kind);
    if (file.proposalId !== null || file.updatedAt !== null) files[file.path] = file.content;
  }
  return files;
}

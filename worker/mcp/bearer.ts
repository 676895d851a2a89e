// The protocol access token on /mcp: found by its hash, live (not expired, not revoked), its person
// still a member of its organization (`membership`) and that organization not suspended, checked on
// every request; every tool call checks the token and the membership again in its authorization transaction.
import { inTransaction, type Connection } from "../../db/transaction";
import { organizationSuspended } from "../auth";
import type { RpcBearer } from "../trpc/context";
import { hashToken } from "../http/hash";
import { findTokenGrant, membership, SUSPENDED, type TokenGrant } from "./grants";

export function presentedBearer(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match ? match[1]! : null;
}

/**
 * The grant behind `token` when it is live and its person is still a member of its organization; else
 * null. A suspended organization's token is refused as its engines are (403 with retryAfterSeconds).
 */
export async function authenticateProtocolToken(connect: () => Promise<Connection>, token: string): Promise<TokenGrant | null> {
  const tokenHash = await hashToken(token);
  return inTransaction(connect, { lookups: { protocol_token_hash: tokenHash } }, async (tx) => {
    const grant = await findTokenGrant(tx, tokenHash);
    const member = grant && (await membership(tx, grant.personId, grant.orgId));
    if (!member) return null;
    if (member.suspended) throw organizationSuspended(SUSPENDED);
    return grant;
  });
}

/** The token as the console procedures' caller: each tool call finds it again when it authorizes. */
export function protocolBearer(token: string): RpcBearer {
  return {
    key: async () => {
      const tokenHash = await hashToken(token);
      return {
        lookups: { protocol_token_hash: tokenHash },
        find: async (tx) => {
          const grant = await findTokenGrant(tx, tokenHash);
          return grant && { personId: grant.personId, orgId: grant.orgId, credentialId: grant.grantId };
        },
      };
    },
  };
}

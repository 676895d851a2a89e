// The protocol access token on /mcp: found by its hash, live (not expired, not revoked), and its
// person still a member of its organization (`authorize`), checked on every request and again by
// every tool call in its authorization transaction.
import { inTransaction, type Connection } from "../../db/transaction";
import { actAs } from "../../db/acting";
import { authorize, Denied } from "../auth";
import type { RpcBearer } from "../trpc/context";
import { hashToken } from "../http/hash";
import { findTokenGrant, type TokenGrant } from "./grants";

export function presentedBearer(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match ? match[1]! : null;
}

/** The grant behind `token` when it is live and its person is still a member of its organization; else null. */
export async function authenticateProtocolToken(connect: () => Promise<Connection>, token: string): Promise<TokenGrant | null> {
  const tokenHash = await hashToken(token);
  return inTransaction(connect, { lookups: { protocol_token_hash: tokenHash } }, async (tx) => {
    const grant = await findTokenGrant(tx, tokenHash);
    if (!grant) return null;
    await actAs(tx, grant.orgId);
    const member = await authorize(tx, { kind: "session", personId: grant.personId }, grant.orgId, null).catch((denied: unknown) => {
      if (denied instanceof Denied) return null;
      throw denied;
    });
    return member ? grant : null;
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

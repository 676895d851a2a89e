// Issuing a token: the value is returned once and only its hash is kept.
import { tokens, type TokenKind } from "../../db/schema";
import type { Tx } from "../../db/transaction";
import type { Permission } from "../auth/permissions";
import { displayPrefix, hashToken, newTokenValue } from "./secret";

export interface IssueToken {
  orgId: string;
  kind: TokenKind;
  name: string;
  scopes?: readonly Permission[];
  expiresAt?: Date | null;
  createdBy?: string | null;
  /** The repository claim an identity-exchange token is minted through. */
  bindingId?: string | null;
}

export async function issueToken(tx: Tx, request: IssueToken): Promise<{ id: string; token: string; createdAt: Date }> {
  const token = newTokenValue(request.kind);
  const [row] = await tx.db
    .insert(tokens)
    .values({
      orgId: request.orgId,
      kind: request.kind,
      name: request.name,
      tokenHash: await hashToken(token),
      displayPrefix: displayPrefix(token),
      scopes: [...(request.scopes ?? [])],
      expiresAt: request.expiresAt ?? null,
      createdBy: request.createdBy ?? null,
      bindingId: request.bindingId ?? null,
    })
    .returning({ id: tokens.id, createdAt: tokens.createdAt });
  return { id: row!.id, token, createdAt: row!.createdAt };
}

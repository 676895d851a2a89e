// Issuing a token: the value is returned once and only its hash is kept.
import { tokens, type TokenKind } from "../../db/schema";
import type { Tx } from "../../db/transaction";
import type { Permission } from "../shared/permissions";
import { cliTokenExpiry } from "./lifetime";
import { displayPrefix, hashToken, newTokenValue } from "./secret";

interface Common {
  orgId: string;
  name: string;
  createdBy?: string | null;
}

export type IssueToken =
  | (Common & {
      kind: "engine";
      expiresAt?: Date | null;
      /** The repository claim an identity-exchange token is minted through. */
      bindingId?: string | null;
    })
  /** A CLI token acts for one person, with scopes never wider than their role; it expires. */
  | (Common & { kind: "cli"; personId: string; scopes: readonly Permission[] });

export async function issueToken(tx: Tx, request: IssueToken): Promise<{ id: string; token: string; createdAt: Date }> {
  const token = newTokenValue(request.kind satisfies TokenKind);
  const [row] = await tx.db
    .insert(tokens)
    .values({
      orgId: request.orgId,
      kind: request.kind,
      name: request.name,
      tokenHash: await hashToken(token),
      displayPrefix: displayPrefix(token),
      createdBy: request.createdBy ?? null,
      ...(request.kind === "cli"
        ? { personId: request.personId, scopes: [...request.scopes], expiresAt: cliTokenExpiry() }
        : { scopes: [], expiresAt: request.expiresAt ?? null, bindingId: request.bindingId ?? null }),
    })
    .returning({ id: tokens.id, createdAt: tokens.createdAt });
  return { id: row!.id, token, createdAt: row!.createdAt };
}

// Token values: 32 random bytes behind a prefix naming the kind. Only the SHA-256 hash is stored;
// lookups go by hash, so a stored value never has to be compared with the secret itself.
import type { TokenKind } from "../../db/schema";

const PREFIX: Record<TokenKind, string> = { engine: "svc_eng_", cli: "svc_cli_" };

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function newTokenValue(kind: TokenKind): string {
  return PREFIX[kind] + base64url(crypto.getRandomValues(new Uint8Array(32)));
}

export async function hashToken(value: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** What a list may show of a token: its kind prefix and a few characters. */
export const displayPrefix = (value: string) => value.slice(0, 12);

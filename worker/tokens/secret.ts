// Secret values (tokens, session cookies, link tokens): 32 random bytes behind a prefix naming the
// kind. Only the SHA-256 hash is stored; lookups go by hash, so a stored value never has to be
// compared with the secret itself.
import type { TokenKind } from "../../db/schema";

export type SecretKind =
  | TokenKind
  | "session"
  | "invitation"
  | "magic_link"
  | "device_code"
  | "export_link"
  | "protocol_code"
  | "protocol_token"
  | "protocol_refresh";

const PREFIX: Record<SecretKind, string> = {
  engine: "svc_eng_",
  cli: "svc_cli_",
  session: "svc_ses_",
  invitation: "svc_inv_",
  magic_link: "svc_mgl_",
  device_code: "svc_dev_",
  export_link: "svc_exp_",
  protocol_code: "svc_mcc_",
  protocol_token: "svc_mcp_",
  protocol_refresh: "svc_mcr_",
};

export function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

export function newTokenValue(kind: SecretKind): string {
  return PREFIX[kind] + base64url(crypto.getRandomValues(new Uint8Array(32)));
}

export async function sha256Hex(input: string | Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", typeof input === "string" ? new TextEncoder().encode(input) : input);
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** What is stored of a secret value. */
export const hashToken = sha256Hex;

/** What a list may show of a token: its kind prefix and a few characters. */
export const displayPrefix = (value: string) => value.slice(0, 12);

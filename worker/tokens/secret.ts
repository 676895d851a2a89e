// Secret values (tokens, session cookies, link tokens): 32 random bytes behind a prefix naming the
// kind. Only the SHA-256 hash is stored (worker/http/hash.ts).
import type { TokenKind } from "../../db/schema";
import { base64url } from "../http/hash";

export type SecretKind = TokenKind | "session" | "invitation" | "magic_link" | "device_code" | "export_link" | "protocol_code" | "protocol_token";

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
};

export function newTokenValue(kind: SecretKind): string {
  return PREFIX[kind] + base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** What a list may show of a token: its kind prefix and a few characters. */
export const displayPrefix = (value: string) => value.slice(0, 12);

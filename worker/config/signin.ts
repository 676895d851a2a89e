// Who may sign in, and what a person without an organization is offered.
import { readFlag, readHttpUrl, splitNames, type EnvReader } from "./readers";
import type { SignInConfig } from "./types";

export function readSignIn(r: EnvReader): SignInConfig {
  return {
    // Unset and set-but-empty differ: open to anyone versus closed to everyone.
    allowlist: r.isSet("SVC_SIGNIN_ALLOWLIST") ? readAllowlist(r) : null,
    signupUrl: readHttpUrl(r, "SVC_SIGNUP_URL"),
    selfServeSignup: readFlag(r, "SVC_SELF_SERVE_SIGNUP"),
  };
}

/** Code-host logins are case-insensitive, so they are kept lower-cased for comparison. */
function readAllowlist(r: EnvReader): string[] {
  const logins = splitNames(r.text("SVC_SIGNIN_ALLOWLIST") ?? "").map((login) => login.toLowerCase());
  return [...new Set(logins)];
}

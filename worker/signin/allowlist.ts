// SVC_SIGNIN_ALLOWLIST: unset lets anyone in, set but empty lets nobody in. Logins compare without case.
import type { Config } from "../config/types";

export const allowedToSignIn = (config: Config, login: string) =>
  config.signIn.allowlist === null || config.signIn.allowlist.includes(login.toLowerCase());

// A browser signing in through the fake code host: /auth/signin, the code host's authorize page,
// /auth/callback, exactly as the redirects go.
import { callWith, setCookies } from "./http";
import { fake } from "./codehost";

export interface SignInAttempt {
  /** The callback's answer. */
  response: Response;
  /** The session cookie's value when one was set. */
  sessionToken: string | null;
}

/** `name`'s value, whether the cookie was set plain or `__Host-` prefixed (Secure cookies). */
const cookieValue = (response: Response, name: string) => new RegExp(`^(?:__Host-)?${name}=([^;]*)`, "m").exec(setCookies(response).join("\n"))?.[1] ?? null;

/** A client address of its own, so tests do not share a rate-limit bucket. */
export const someAddress = () => `198.51.100.${Math.floor(Math.random() * 250)}, 10.${[0, 0, 0].map(() => Math.floor(Math.random() * 250)).join(".")}`;

/** Signs in from `address` (default: an address of its own; null: no X-Forwarded-For at all). */
export async function signIn(login: string, options: { overrides?: Record<string, unknown>; address?: string | null } = {}): Promise<SignInAttempt> {
  const overrides = options.overrides ?? {};
  const address = options.address === undefined ? someAddress() : options.address;
  const headers: Record<string, string> = address ? { "x-forwarded-for": address } : {};
  const start = await callWith(overrides, "/auth/signin", { headers, redirect: "manual" });
  if (start.status !== 302) throw new Error(`/auth/signin answered ${start.status}`);
  const state = setCookies(start)
    .find((line) => /^(__Host-)?svc_oauth_state=/.test(line))!
    .split(";")[0]!;
  const authorize = new URL(start.headers.get("location")!);
  authorize.searchParams.set("login", login);
  const back = await fake(authorize.pathname + authorize.search, { redirect: "manual" });
  const callback = new URL(back.headers.get("location")!);
  const response = await callWith(overrides, callback.pathname + callback.search, {
    headers: { ...headers, cookie: state },
    redirect: "manual",
  });
  return { response, sessionToken: cookieValue(response, "svc_session") || null };
}

export async function codehostUser(login: string, orgs: Record<string, "admin" | "member"> = {}, hiddenOrgs: string[] = []): Promise<number> {
  const response = await fake("/_fake/users", { json: { login, orgs, hiddenOrgs } });
  return ((await response.json()) as { id: number }).id;
}

// The client's address: the X-Forwarded-For entry SVC_TRUSTED_PROXY_HOPS places from the end (the
// entries before it were written by whoever sent the request and prove nothing). Absent, or not an
// address: null, and the caller is limited in one shared bucket and no address is recorded.
import type { AppContext } from "./context";

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9a-f:]+(:\d{1,3}(\.\d{1,3}){3})?$/i;

const isAddress = (text: string) => IPV4.test(text) || (text.includes(":") && IPV6.test(text) && text.length <= 45);

export function clientAddress(forwardedFor: string | undefined, trustedHops: number): string | null {
  if (!forwardedFor) return null;
  const entries = forwardedFor.split(",").map((entry) => entry.trim());
  const chosen = entries[entries.length - trustedHops];
  return chosen !== undefined && isAddress(chosen) ? chosen.toLowerCase() : null;
}

/** The calling client's address as the configured proxies report it. */
export const clientAddressOf = (c: AppContext) => clientAddress(c.req.header("x-forwarded-for"), c.var.config.server.trustedProxyHops);

/** The rate-limit bucket of a client: its address, or the shared one. */
export const addressBucket = (kind: string, address: string | null) => `${kind}:${address ?? "shared"}`;

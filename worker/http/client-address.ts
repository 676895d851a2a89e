// The client's address: the X-Forwarded-For entry SVC_TRUSTED_PROXY_HOPS places from the end (the
// entries before it were written by whoever sent the request and prove nothing). Absent, or not an
// address: null, and the caller is limited in one shared bucket and no address is recorded.
import type { AppContext } from "./context";

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** An IPv6 address as its eight 16-bit groups (`::` expanded, a dotted IPv4 tail read as two), or null when it is not one. */
function ipv6Groups(text: string): number[] | null {
  let rest = text;
  const tail: number[] = [];
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    if (!IPV4.test(dotted[2]!)) return null;
    const [a, b, c, d] = dotted[2]!.split(".").map(Number) as [number, number, number, number];
    tail.push((a << 8) | b, (c << 8) | d);
    rest = dotted[1]!.endsWith("::") ? dotted[1]! : dotted[1]!.slice(0, -1);
  }
  const halves = rest.split("::");
  if (halves.length > 2) return null;
  const groups = (part: string) => (part === "" ? [] : part.split(":").map((group) => (/^[0-9a-f]{1,4}$/i.test(group) ? parseInt(group, 16) : NaN)));
  const left = groups(halves[0]!);
  const right = halves.length === 2 ? groups(halves[1]!) : [];
  const known = left.length + right.length + tail.length;
  if ([...left, ...right].some(Number.isNaN) || (halves.length === 1 ? known !== 8 : known > 7)) return null;
  return [...left, ...Array<number>(8 - known).fill(0), ...right, ...tail];
}

const isAddress = (text: string) => IPV4.test(text) || (text.includes(":") && text.length <= 45 && ipv6Groups(text) !== null);

export function clientAddress(forwardedFor: string | undefined, trustedHops: number): string | null {
  if (!forwardedFor) return null;
  const entries = forwardedFor.split(",").map((entry) => entry.trim());
  const chosen = entries[entries.length - trustedHops];
  return chosen !== undefined && isAddress(chosen) ? chosen.toLowerCase() : null;
}

/** The calling client's address as the configured proxies report it. */
export const clientAddressOf = (c: AppContext) => clientAddress(c.req.header("x-forwarded-for"), c.var.config.server.trustedProxyHops);

/**
 * Whom a rate limit counts an address as: an IPv4 address whole; an IPv6 address by its /64 (one
 * subscriber's network: a client holds all of it and could otherwise take a fresh address, so a fresh
 * bucket, for every attempt), expanded so every spelling of it is one key; an IPv4-mapped IPv6
 * address (`::ffff:a.b.c.d`) as the IPv4 address it is.
 */
export function rateLimitSubject(address: string): string {
  const groups = address.includes(":") ? ipv6Groups(address) : null;
  if (!groups) return address;
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join(".");
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16).padStart(4, "0"))
    .join(":")}::/64`;
}

/** The rate-limit bucket of a client: its address (an IPv6 one by its /64), or the shared one. */
export const addressBucket = (kind: string, address: string | null) => `${kind}:${address === null ? "shared" : rateLimitSubject(address)}`;

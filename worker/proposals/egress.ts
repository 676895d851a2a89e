// The egress policy as a structure: a default, hosts allowed and hosts denied (a deny wins over an
// allow). Rendered as the `egress:` block of the project configuration file, and compared with the
// policy in force to tell whether a change loosens it (allows something that was denied).
import * as z from "zod";
import { storable } from "../http/text";

/** A host name, or `*.` and a domain for every name under it. */
const Host = storable(
  z
    .string()
    .max(253)
    .regex(/^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, "must be a lower-case host name, or *. and a domain"),
);

export const EgressRule = z.strictObject({
  host: Host,
  ports: z.array(z.int().min(1).max(65535)).max(20).default([]).describe("Empty: every port."),
});
export type EgressRule = z.output<typeof EgressRule>;

export const EgressPolicy = z.strictObject({
  default: z.enum(["deny", "allow"]).describe("What happens to a host no rule names."),
  allow: z.array(EgressRule).max(200).default([]),
  deny: z.array(EgressRule).max(200).default([]).describe("A deny wins over an allow."),
});
export type EgressPolicy = z.output<typeof EgressPolicy>;

/** Before any proposal was approved: nothing leaves. */
export const INITIAL_EGRESS: EgressPolicy = { default: "deny", allow: [], deny: [] };

const ports = (rule: EgressRule) => (rule.ports.length ? `\n      ports: [${[...rule.ports].sort((a, b) => a - b).join(", ")}]` : "");
const rules = (name: string, list: EgressRule[]) =>
  list.length ? `  ${name}:\n${list.map((rule) => `    - host: ${rule.host}${ports(rule)}`).join("\n")}\n` : `  ${name}: []\n`;

/** The `egress:` block as the project configuration file carries it (YAML). */
export function renderEgressBlock(policy: EgressPolicy): string {
  return `egress:\n  default: ${policy.default}\n${rules("allow", policy.allow)}${rules("deny", policy.deny)}`;
}

/**
 * The configuration file with its top-level `egress:` block replaced by `block` (the rest kept as it
 * is), or the block appended when the file has none.
 */
export function withEgressBlock(configuration: string, block: string): string {
  const lines = configuration === "" ? [] : configuration.replace(/\n$/, "").split("\n");
  const start = lines.findIndex((line) => /^egress\s*:/.test(line));
  if (start === -1) return `${lines.length ? `${lines.join("\n")}\n\n` : ""}${block}`;
  let end = start + 1;
  // The block runs on while lines are indented, blank or comments.
  while (end < lines.length && (/^\s/.test(lines[end]!) || lines[end] === "" || lines[end]!.startsWith("#"))) end++;
  // Trailing blank lines and comments belong to what follows.
  while (end > start + 1 && (lines[end - 1] === "" || lines[end - 1]!.startsWith("#"))) end--;
  return [...lines.slice(0, start), block.replace(/\n$/, ""), ...lines.slice(end)].join("\n") + "\n";
}

const hostMatches = (pattern: string, host: string) =>
  pattern === host || (pattern.startsWith("*.") && !host.startsWith("*.") && host.endsWith(pattern.slice(1)));
/** Port 0 stands for "every port": only a rule naming no port covers it. */
const portMatches = (rule: EgressRule, port: number) => rule.ports.length === 0 || rule.ports.includes(port);
const matches = (rule: EgressRule, host: string, port: number) => hostMatches(rule.host, host) && portMatches(rule, port);

/** Whether `policy` lets a connection to `host` on `port` out (port 0: a rule for every port only). */
export function allows(policy: EgressPolicy, host: string, port: number): boolean {
  if (policy.deny.some((rule) => matches(rule, host, port))) return false;
  return policy.default === "allow" || policy.allow.some((rule) => matches(rule, host, port));
}

const OTHER_HOST = "any host no rule names";

/**
 * What `next` allows that `current` denied, as readable entries (`host`, `host:port`, or the default);
 * empty when the change loosens nothing. Every host and port either policy names is tried, and a host
 * neither names.
 */
export function loosenedBy(current: EgressPolicy, next: EgressPolicy): string[] {
  const probes = new Map<string, [string, number]>();
  for (const rule of [...current.allow, ...current.deny, ...next.allow, ...next.deny]) {
    probes.set(`${rule.host}`, [rule.host, 0]);
    for (const port of rule.ports) probes.set(`${rule.host}:${port}`, [rule.host, port]);
  }
  probes.set(OTHER_HOST, [`\u0000${OTHER_HOST}`, 0]);
  return [...probes].filter(([, [host, port]]) => !allows(current, host, port) && allows(next, host, port)).map(([label]) => label);
}

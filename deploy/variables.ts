// A deployment's variables: the template that says which are secret and where each is set
// (deploy/variables.md), the plain ones wrangler.toml gives an environment, and the checks `npm run
// deploy` makes before anything leaves this machine: each value in the place the template names.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { unstable_readConfig } from "wrangler";

export const ROOT = fileURLToPath(new URL("../", import.meta.url));
export const TEMPLATE = "deploy/variables.md";
export const SECRETS_EXAMPLE = "deploy/secrets.example.json";

/** Where a variable is set (deploy/variables.md explains each). */
export const PLACES = ["secrets file", "[vars]", "deploy", "pipeline", "operator", "unset", "site build", "customers"] as const;
export type Place = (typeof PLACES)[number];

export interface Variable {
  name: string;
  kind: string;
  place: string;
  note: string;
}

/** The places whose variables are always secret, and those always plain. */
const SECRET_PLACES: readonly string[] = ["secrets file", "pipeline", "operator"];
const PLAIN_PLACES: readonly string[] = ["[vars]", "deploy", "site build"];

/** The template's table rows, in order: `| \`NAME\` | kind | place | note |`. */
export function readTemplate(text = readFileSync(ROOT + TEMPLATE, "utf8")): Variable[] {
  return text.split("\n").flatMap((line) => {
    const row = /^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|(.*)\|\s*$/.exec(line);
    if (!row) return [];
    const [kind = "", place = "", ...note] = row[2]!.split("|").map((cell) => cell.trim());
    return [{ name: row[1]!, kind, place, note: note.join("|") }];
  });
}

/** What makes the template unusable: a name listed twice, a kind or place it does not define, a secret kept where plain values go. */
export function templateProblems(rows: readonly Variable[]): string[] {
  const problems: string[] = [];
  const seen = new Map<string, Variable>();
  for (const row of rows) {
    const earlier = seen.get(row.name);
    if (earlier) problems.push(`${row.name} is listed twice in ${TEMPLATE} (${earlier.kind}, ${row.kind}).`);
    seen.set(row.name, row);
    if (row.kind !== "secret" && row.kind !== "plain") problems.push(`${row.name}: the kind "${row.kind}" is neither secret nor plain.`);
    if (!(PLACES as readonly string[]).includes(row.place)) problems.push(`${row.name}: "${row.place}" is not one of ${PLACES.join(", ")}.`);
    if (SECRET_PLACES.includes(row.place) && row.kind !== "secret") problems.push(`${row.name} is set in the ${row.place}, which holds secrets only.`);
    if (PLAIN_PLACES.includes(row.place) && row.kind !== "plain") problems.push(`${row.name} is set in ${row.place}, which is not secret.`);
  }
  return problems;
}

export const templateByName = (rows: readonly Variable[] = readTemplate()): Map<string, Variable> => new Map(rows.map((row) => [row.name, row]));

/** The environments a wrangler configuration defines (`[env.<name>]` and its sub-tables). */
export function environmentsOf(config: string): string[] {
  const text = readFileSync(ROOT + config, "utf8");
  return [...new Set([...text.matchAll(/^\[{1,2}env\.([A-Za-z0-9_-]+)[.\]]/gm)].map((match) => match[1]!))];
}

/** The plain variables wrangler gives the Worker of `env` (its `[env.<env>.vars]`; the top level's with none). */
export function wranglerVars(config: string, env?: string): Record<string, unknown> {
  return unstable_readConfig({ config: ROOT + config, env }, { hideWarnings: true }).vars;
}

/** The example values of deploy/secrets.example.json, which a deployment must have replaced. */
export const secretsExample = (): Record<string, string> => JSON.parse(readFileSync(ROOT + SECRETS_EXAMPLE, "utf8")) as Record<string, string>;

/** Why `name` may not be where `label` puts it, which should hold variables of `expected`; null when it may. */
function misplaced(template: Map<string, Variable>, name: string, expected: "secrets file" | "[vars]", label: string, env: string): string | null {
  const variable = template.get(name);
  if (!variable) return `${name} (in ${label}) is not a variable of the control plane (${TEMPLATE}).`;
  if (variable.place === expected) return null;
  switch (variable.place) {
    case "secrets file":
      return `${name} is a secret: put it in the secrets file, not in ${label} (plain variables are readable in the Worker's settings).`;
    case "[vars]":
      return `${name} is plain configuration: set it in wrangler.toml [env.${env}.vars], not in ${label}.`;
    case "deploy":
      return `${name} is stamped by the deploy itself; remove it from ${label}.`;
    case "pipeline":
    case "operator":
      return `${name} must not reach the Worker (${TEMPLATE}: ${variable.place}); remove it from ${label}.`;
    default:
      return `${name} stays unset in a deployment (${variable.note}); remove it from ${label}.`;
  }
}

export interface Placed {
  /** The wrangler environment, for the sentences. */
  env: string;
  /** The secrets file's values, and the file's name for the sentences. */
  secrets: Record<string, unknown>;
  secretsLabel: string;
  /** The environment's `[vars]` and the deploy's own `--var` values, kept apart for the sentences. */
  vars: Record<string, unknown>;
  overrides: Record<string, unknown>;
}

/** Every value that is not where deploy/variables.md says it belongs, each as one sentence. */
export function placementProblems(placed: Placed, template = templateByName(), example = secretsExample()): string[] {
  const problems: string[] = [];
  const check = (values: Record<string, unknown>, expected: "secrets file" | "[vars]", label: string) => {
    for (const [name, value] of Object.entries(values)) {
      const problem = misplaced(template, name, expected, label, placed.env);
      if (problem) problems.push(problem);
      else if (typeof value !== "string") problems.push(`${name} in ${label} must be text (in quotes): the Worker ignores a number or a table.`);
      else if (expected === "secrets file" && example[name] === value)
        problems.push(`${name} in ${label} still holds the example value of ${SECRETS_EXAMPLE}.`);
    }
  };
  check(placed.secrets, "secrets file", placed.secretsLabel);
  check(placed.vars, "[vars]", `wrangler.toml [env.${placed.env}.vars]`);
  check(placed.overrides, "[vars]", "--var");
  return problems;
}

// The deployment's variables (deploy/variables.md): every variable the parser reads, the contract names
// and this implementation uses is listed once, as secret or plain; wrangler.toml's [vars] hold no
// secret; the secrets template holds only the Worker's secrets; and the deploy's check refuses a value
// kept anywhere but where the template puts it, naming it.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  environmentsOf,
  type Placed,
  placementProblems,
  readTemplate,
  ROOT,
  secretsExample,
  templateByName,
  templateProblems,
  wranglerVars,
} from "../../deploy/variables";
import { CONFIG_VARIABLES } from "../../worker/config/variables";

const rows = readTemplate();
const template = templateByName(rows);
const missingOrTwice = (names: readonly string[]) => names.filter((name) => rows.filter((row) => row.name === name).length !== 1);
const namesIn = (text: string, prefix = "(?:SVC|SITE)") => [...new Set(text.match(new RegExp(`\\b${prefix}_[A-Z0-9_]*[A-Z0-9]\\b`, "g")) ?? [])];

/** The source files that read variables: the Worker, the commands, the local stack, the scripts, the deploy, the site's build. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "dist" ? [] : sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

describe("deploy/variables.md", () => {
  it("lists every variable the configuration parser knows (worker/config/variables.ts), each once", () => {
    expect(rows.length).toBeGreaterThan(70);
    expect(missingOrTwice(CONFIG_VARIABLES)).toEqual([]);
  });

  it("lists every variable of the contract (docs/control-plane.md) and this implementation's own (worker/config/README.md), each once", () => {
    const documented = namesIn(["docs/control-plane.md", "worker/config/README.md"].map((file) => readFileSync(ROOT + file, "utf8")).join("\n"));
    expect(documented).toContain("SVC_CONTROL_PLANE_TOKEN");
    expect(documented).toContain("SITE_CONTROL_PLANE_URL");
    expect(missingOrTwice(documented)).toEqual([]);
  });

  it("lists every SVC_ variable the code names (worker, cli, local, db, scripts, deploy, site's build)", () => {
    const named = namesIn(
      ["worker", "cli", "local", "db", "scripts", "deploy", "site/build"]
        .flatMap(sources)
        .map((file) => readFileSync(ROOT + file, "utf8"))
        .join("\n"),
      "SVC",
    );
    expect(named).toContain("SVC_LOCAL_CRON_SECRET");
    expect(named.filter((name) => !template.has(name))).toEqual([]);
  });

  it("classifies each variable as secret or plain, once, and keeps no secret where plain values go", () => {
    expect(templateProblems(rows)).toEqual([]);
    expect(template.get("SVC_DATABASE_URL")).toMatchObject({ kind: "secret", place: "secrets file" });
    expect(template.get("SVC_MIGRATION_DATABASE_URL")).toMatchObject({ kind: "secret", place: "pipeline" });
    expect(template.get("SVC_VERSION")).toMatchObject({ kind: "plain", place: "deploy" });
  });

  it("refuses itself when a variable is classified both ways, or in no way, or a secret is put among plain values", () => {
    const problems = templateProblems([
      ...rows,
      { name: "SVC_DATABASE_URL", kind: "plain", place: "[vars]", note: "" },
      { name: "SVC_NEW", kind: "secret/plain", place: "secrets file", note: "" },
      { name: "SVC_OTHER", kind: "secret", place: "[vars]", note: "" },
    ]);
    expect(problems).toEqual([
      "SVC_DATABASE_URL is listed twice in deploy/variables.md (secret, plain).",
      'SVC_NEW: the kind "secret/plain" is neither secret nor plain.',
      "SVC_NEW is set in the secrets file, which holds secrets only.",
      "SVC_OTHER is set in [vars], which is not secret.",
    ]);
  });
});

describe("what the template's companions hold", () => {
  const configs = ["wrangler.toml", "site/wrangler.toml"];
  for (const config of configs) {
    for (const env of [undefined, ...environmentsOf(config)]) {
      it(`${config} ${env ? `[env.${env}.vars]` : "[vars]"} holds no secret, and only variables meant for [vars], as text`, () => {
        const vars = wranglerVars(config, env);
        expect(Object.keys(vars).filter((name) => template.get(name)?.kind !== "plain")).toEqual([]);
        expect(placementProblems({ env: env ?? "", secrets: {}, secretsLabel: "", vars, overrides: {} })).toEqual([]);
      });
    }
  }

  it("wrangler.toml defines the production and preview environments the docs and workflows deploy", () => {
    expect(environmentsOf("wrangler.toml")).toEqual(["production", "preview"]);
  });

  it("deploy/secrets.example.json holds only the Worker's secrets, each with a placeholder the deploy refuses to upload", () => {
    const example = secretsExample();
    expect(Object.keys(example).filter((name) => template.get(name)?.place !== "secrets file")).toEqual([]);
    expect(Object.keys(example)).toContain("SVC_DATABASE_URL");
    expect(Object.values(example).every((value) => value.includes("<"))).toBe(true);
  });
});

describe("the deploy's placement check", () => {
  const check = (placed: Partial<Placed>) =>
    placementProblems({ env: "production", secrets: {}, secretsLabel: "deploy/secrets.production.json", vars: {}, overrides: {}, ...placed });

  it("refuses a secret among the plain variables, naming it and where it goes", () => {
    expect(check({ vars: { SVC_EE_SSO_KEY: "k" }, overrides: { SVC_BILLING_SECRET_KEY: "sk" } })).toEqual([
      "SVC_EE_SSO_KEY is a secret: put it in the secrets file, not in wrangler.toml [env.production.vars] (plain variables are readable in the Worker's settings).",
      "SVC_BILLING_SECRET_KEY is a secret: put it in the secrets file, not in --var (plain variables are readable in the Worker's settings).",
    ]);
  });

  it("refuses plain configuration, a stamp and the owner's credential in the secrets file", () => {
    expect(check({ secrets: { SVC_APP_BASE_URL: "https://cp.example.com", SVC_COMMIT: "abc", SVC_MIGRATION_DATABASE_URL: "postgresql://o@h/db" } })).toEqual([
      "SVC_APP_BASE_URL is plain configuration: set it in wrangler.toml [env.production.vars], not in deploy/secrets.production.json.",
      "SVC_COMMIT is stamped by the deploy itself; remove it from deploy/secrets.production.json.",
      "SVC_MIGRATION_DATABASE_URL must not reach the Worker (deploy/variables.md: pipeline); remove it from deploy/secrets.production.json.",
    ]);
  });

  it("refuses a local-only variable, an unknown name, a number and an example left in place", () => {
    const example = secretsExample().SVC_EE_SSO_KEY!;
    expect(check({ vars: { SVC_MIGRATE: "1", SVC_POOL_MAX: 10 }, overrides: { SVC_TYPO: "x" }, secrets: { SVC_EE_SSO_KEY: example } })).toEqual([
      "SVC_EE_SSO_KEY in deploy/secrets.production.json still holds the example value of deploy/secrets.example.json.",
      expect.stringMatching(/^SVC_MIGRATE stays unset in a deployment \(.+\); remove it from wrangler.toml \[env.production.vars\]\.$/),
      "SVC_POOL_MAX in wrangler.toml [env.production.vars] must be text (in quotes): the Worker ignores a number or a table.",
      "SVC_TYPO (in --var) is not a variable of the control plane (deploy/variables.md).",
    ]);
  });

  it("accepts the template's own shape: the example's secrets, filled in, and production's [vars]", () => {
    const secrets = Object.fromEntries(Object.keys(secretsExample()).map((name) => [name, `filled-${name}`]));
    expect(check({ secrets, vars: wranglerVars("wrangler.toml", "production") })).toEqual([]);
  });
});

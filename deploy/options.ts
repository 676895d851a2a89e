// The options of `npm run deploy` (deploy/cli.ts), here so that the docs' commands can be checked
// against them (test/deploy/commands.node.ts).
import type { ParseArgsConfig } from "node:util";

export const OPTIONS = {
  env: { type: "string" },
  secrets: { type: "string" },
  name: { type: "string" },
  "site-name": { type: "string" },
  var: { type: "string", multiple: true },
  "database-host": { type: "string" },
  out: { type: "string" },
  "dry-run": { type: "boolean", default: false },
  rehearse: { type: "boolean", default: false },
  "print-serving-commit": { type: "boolean", default: false },
  help: { type: "boolean", default: false },
} as const satisfies ParseArgsConfig["options"];

export const USAGE = `usage: npm run deploy -- --env <environment> [options]

  --env <name>             wrangler environment of wrangler.toml and site/wrangler.toml (production, preview)
  --secrets <file>         the Worker's secrets (default deploy/secrets.<env>.json; deploy/variables.md)
  --name <worker>          deploy the control plane under this name (a pull request's preview)
  --site-name <worker>     deploy the site under this name
  --var <KEY:VALUE>        a plain variable over [env.<env>.vars] (repeatable)
  --database-host <host>   point the secrets' database URLs at this pooled host (a Neon branch)
  --out <dir>              where the builds go (default dist/deploy/<env>)
  --dry-run                print each step's command instead of running it
  --rehearse               run the steps against a local stack (npm run deploy:rehearse)
  --print-serving-commit   print the commit the deployment's /readyz reports (nothing if it does not answer)

SVC_MIGRATION_DATABASE_URL (the project owner, direct endpoint), CLOUDFLARE_API_TOKEN and
CLOUDFLARE_ACCOUNT_ID come from the shell.`;

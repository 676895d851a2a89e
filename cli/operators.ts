// The operators' commands: what runs outside the Worker, against the database, from a clone of the
// repository. Named here without their code, so that the installed CLI (cli/installed.ts), which
// carries none of it, knows them and says where they run.

export const OPERATOR_NAMES = [
  "migrate",
  "config",
  "orgs",
  "tokens",
  "partitions",
  "audit",
  "export",
  "reseal",
  "licence",
  "admin",
  "analytics",
  "frames",
  "cron",
] as const;

export type OperatorCommand = (typeof OPERATOR_NAMES)[number];

export const OPERATOR_USAGE = `for operators (against the database; beside \`npm start\` they read .data/local.env):
  migrate                                   apply pending migrations (SVC_MIGRATION_DATABASE_URL)
  config check [--database]                 validate the environment exactly like the Worker does
                                            (--database: and that its logins may serve, as /readyz says)
  orgs create <slug> [--name N] [--plan P]  create an organization
  tokens create --org <slug> --kind engine|cli [--person <login>] [--scope <permission> ...] [--name N]
                                            print a new token alone on standard output
  partitions                                keep event partitions ahead; archive and drop past the retention
  audit verify <file> [--head <hash>]       check an exported audit log offline; names the first bad entry
  export <slug> [--out DIR]                 write the organization's data export document to a file
  reseal [--database-url URL] [--batch N]   re-seal every stored provider key under SVC_PROVIDER_KEY_VERSION (SVC_RESEAL_DATABASE_URL)
  licence keygen --out <private.pem>        make an Ed25519 key pair; prints the public key for SVC_LICENSE_PUBLIC_KEYS
  licence issue --key <private.pem> --kid K --org ORG --id LID (--expires DATE | --days N) [--grace-days N] [--feature F ...]
                                            print a signed licence (SVC_LICENSE_KEY); features: sso, scim
  admin bootstrap|add|reset-password <login>  the first operator / another / a new password; the password only from
                                            SVC_ADMIN_BOOTSTRAP_PASSWORD or standard input (SVC_ADMIN_DATABASE_URL)
  admin remove <login> | admin list         remove an operator (and their sessions); list operators
  analytics rollup                          roll beacon events and own usage into daily aggregates now (the daily cron's job)
  cron list                                 the Cron Triggers of wrangler.toml: each job, its schedule and next run (UTC)
  cron run <cron or job name> [--url URL]   run one job now in the local Worker (\`npm start\`) and print its report
  frames --map <index.js.map> [file]        a failure sample's (or log line's) frames at their places in our source, by the
                                            deploy's source map (wrangler deploy --outdir); standard input without a file`;

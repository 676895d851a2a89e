// The `svc` command line, for two audiences: the people of an organization (cli/people/: HTTP to the
// control plane only) and its operators (what runs outside the Worker, against the database).
// `npx svc <command>` or `npm run --silent svc -- <command>`.
import { withLocalDefaults } from "./env-file";
import { UsageError, type Command } from "./command";
import { databaseUnreachableSentence } from "./database-unreachable";
import { PEOPLE_COMMANDS, PEOPLE_USAGE } from "./people";
import { Stop } from "./people/refusal";

// Operator commands load on demand: their database drivers would add a second to every people's command.
const OPERATOR_COMMANDS: Record<string, () => Promise<Command>> = {
  migrate: async () => (await import("./commands/migrate")).migrate,
  config: async () => (await import("./commands/config-check")).configCheck,
  orgs: async () => (await import("./commands/orgs")).orgs,
  tokens: async () => (await import("./commands/tokens")).tokens,
  partitions: async () => (await import("./commands/partitions")).partitions,
  audit: async () => (await import("./commands/audit")).audit,
  export: async () => (await import("./commands/export")).dataExport,
  reseal: async () => (await import("./commands/reseal")).reseal,
  licence: async () => (await import("./commands/licence")).licence,
  admin: async () => (await import("./commands/admin")).admin,
  analytics: async () => (await import("./commands/analytics")).analytics,
  frames: async () => (await import("./commands/frames")).frames,
  cron: async () => (await import("./commands/cron")).cron,
};

const commandNamed = async (name: string | undefined): Promise<Command | undefined> => {
  if (!name) return undefined;
  if (Object.hasOwn(PEOPLE_COMMANDS, name)) return PEOPLE_COMMANDS[name];
  return Object.hasOwn(OPERATOR_COMMANDS, name) ? OPERATOR_COMMANDS[name]!() : undefined;
};

const USAGE = `usage: svc <command>

${PEOPLE_USAGE}

for operators (against the database; beside \`npm start\` they read .data/local.env):
  migrate                                   apply pending migrations (SVC_MIGRATION_DATABASE_URL)
  config check                              validate the environment exactly like the Worker does
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

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  const command = await commandNamed(name);
  if (!command) {
    console.error(USAGE);
    return name === "help" || name === "--help" ? 0 : 64;
  }
  const env = withLocalDefaults(process.env);
  try {
    return await command(args, env);
  } catch (error) {
    if (error instanceof Stop) {
      // The service's sentence (never a token); with --json, its JSON answer too, for scripts.
      if (args.includes("--json") && error.body !== undefined) process.stdout.write(`${JSON.stringify(error.body, null, 2)}\n`);
      console.error(error.message);
      return error.exitStatus;
    }
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${USAGE}`);
      return 64;
    }
    // A database that refuses the connection (the local stack not running): say so, and which variable named it.
    const unreachable = databaseUnreachableSentence(error, env);
    if (unreachable) {
      console.error(unreachable);
      return 69;
    }
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));

// The `svc` command line, for two audiences: the people of an organization (cli/people/: HTTP to the
// control plane only) and its operators (what runs outside the Worker, against the database).
// `npx svc <command>` or `npm run --silent svc -- <command>`; the people's part alone is also built
// into one file to install anywhere (cli/installed.ts, `npm run build:cli`).
import type { Command } from "./command";
import { withLocalDefaults } from "./env-file";
import { OPERATOR_USAGE, type OperatorCommand } from "./operators";
import { PEOPLE_COMMANDS, PEOPLE_USAGE } from "./people";
import { run } from "./run";

// Operator commands load on demand: their database drivers would add a second to every people's command.
const OPERATOR_COMMANDS: Record<OperatorCommand, () => Promise<Command>> = {
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
  return Object.hasOwn(OPERATOR_COMMANDS, name) ? OPERATOR_COMMANDS[name as OperatorCommand]() : undefined;
};

const USAGE = `usage: svc <command>

${PEOPLE_USAGE}

${OPERATOR_USAGE}`;

process.exitCode = await run(process.argv.slice(2), withLocalDefaults(process.env), commandNamed, USAGE);

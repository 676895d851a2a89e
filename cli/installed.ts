// The installed `svc` (`npm run build:cli` bundles this file into cli/dist/svc.mjs, `npm install -g
// ./cli` puts it on the PATH): the people's commands only, HTTP to a control plane, nothing of the
// repository at run time. An operator's command names where it runs instead.
import type { Command } from "./command";
import { OPERATOR_NAMES } from "./operators";
import { PEOPLE_COMMANDS, PEOPLE_USAGE } from "./people";
import { run } from "./run";

const USAGE = `usage: svc <command>

${PEOPLE_USAGE}

operators' commands (${OPERATOR_NAMES.join(", ")}) run against the service's database
from a clone of its repository: npm run --silent svc -- <command>`;

/** Exit status of an operator's command here: a usage error, since it is the wrong place to run it. */
const ELSEWHERE = 64;

const operatorElsewhere =
  (name: string): Command =>
  async () => {
    console.error(
      `svc ${name} is an operator's command: it runs against the service's database, from a clone of its repository (npm run --silent svc -- ${name} there). This installed svc carries the commands for the people of an organization; svc --help lists them.`,
    );
    return ELSEWHERE;
  };

const commandNamed = async (name: string | undefined): Promise<Command | undefined> => {
  if (!name) return undefined;
  if (Object.hasOwn(PEOPLE_COMMANDS, name)) return PEOPLE_COMMANDS[name];
  return (OPERATOR_NAMES as readonly string[]).includes(name) ? operatorElsewhere(name) : undefined;
};

process.exitCode = await run(process.argv.slice(2), process.env, commandNamed, USAGE);

// `npm run deploy -- --env <environment>`: checks the configuration, builds, migrates, uploads the
// secrets, deploys both Workers stamped with this commit and smoke-tests them, stopping at the first
// step that fails with what to do (docs/deploy.md). Run twice, it leaves what one run leaves.
// `--dry-run` prints each command instead; `--rehearse` runs it all against a local stack
// (`npm run deploy:rehearse`); `--print-serving-commit` prints the commit the deployment's /readyz reports.
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { DeployRefusal, deploySteps, type Io, resolveDeployment, runSteps } from "./plan";
import { OPTIONS, USAGE } from "./options";
import { readiness } from "./smoke";

const io: Io = { say: (line) => console.log(line), output: (text) => process.stdout.write(text) };

async function main(): Promise<number> {
  const { values } = parseArgs({ options: OPTIONS });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (values.rehearse) {
    // Loaded only here: it brings the local stack and Miniflare.
    const { rehearse } = await import("./rehearsal");
    return (await rehearse({ env: values.env ?? "production", io })) ? 0 : 1;
  }
  if (!values.env) {
    console.error(USAGE);
    return 64;
  }
  const deployment = resolveDeployment({
    env: values.env,
    secrets: values.secrets,
    name: values.name,
    siteName: values["site-name"],
    vars: values.var,
    databaseHost: values["database-host"],
    out: values.out,
  });
  if (values["print-serving-commit"]) {
    const { commit } = await readiness(deployment.base).catch(() => ({ commit: undefined }));
    if (typeof commit === "string" && /^[0-9a-f]{40}$/.test(commit)) console.log(commit);
    return 0;
  }
  try {
    const ok = await runSteps(deploySteps(deployment, io), io, values["dry-run"]);
    if (ok && !values["dry-run"]) io.say(`\nDeployed ${deployment.stamp.version} (${deployment.stamp.commit}) to ${values.env}.`);
    return ok ? 0 : 1;
  } finally {
    // The copy pointed at another database host holds the secrets too.
    if (deployment.uploadFile !== deployment.secretsFile) rmSync(deployment.uploadFile, { force: true });
  }
}

try {
  process.exitCode = await main();
} catch (error) {
  if (!(error instanceof DeployRefusal || (error as { code?: string }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION")) throw error;
  console.error(`${(error as Error).message}\n\n${USAGE}`);
  process.exitCode = 64;
}

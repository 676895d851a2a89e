// The operator's `svc` (the package's bin), pointed at the suite's Worker with the local stack's cron secret.
import { spawnSync } from "node:child_process";
import { inject } from "vitest";
import { base } from "./browser";

const ROOT = new URL("../../../", import.meta.url).pathname;
const BIN = `${ROOT}cli/bin.mjs`;

export function svc(args: string[]) {
  const { workerEnv } = inject("e2e");
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, SVC_CONTROL_PLANE: base, SVC_LOCAL_CRON_SECRET: workerEnv.SVC_LOCAL_CRON_SECRET };
  return spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: "utf8", env });
}

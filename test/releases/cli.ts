// `npm run release:check -- [<commit>]`: the release check for one commit (default: db/previous-release),
// for the deploy pipeline to run against the commit production actually serves. Prints one line a path;
// exits 1 when a path failed, 2 when the check itself could not run.
import { rmSync } from "node:fs";
import { checkRelease, failed, formatReport, previousRelease, resolveCommit, workFolder } from "./check";

const dir = workFolder();
const started = performance.now();
try {
  const commit = resolveCommit(process.argv[2] ?? previousRelease());
  const results = await checkRelease(commit, dir);
  console.log(formatReport(commit, results));
  console.log(`(${((performance.now() - started) / 1000).toFixed(0)} s)`);
  process.exitCode = failed(results).length > 0 ? 1 : 0;
} catch (error) {
  console.error(`The release check could not run: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 2;
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// `npm run build:cli`: the people's `svc` (cli/installed.ts) bundled into one JavaScript file,
// cli/dist/svc.mjs, the bin of the package in cli/ (`npm install -g ./cli`). It needs Node and nothing
// else: no tsx, no TypeScript, no node_modules, nothing of this repository.
import { chmodSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const outfile = fileURLToPath(new URL("../cli/dist/svc.mjs", import.meta.url));

const result = await build({
  entryPoints: [fileURLToPath(new URL("../cli/installed.ts", import.meta.url))],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  banner: { js: "#!/usr/bin/env node" },
  // Small enough to read, and quick to start: no source map, nothing minified.
  legalComments: "none",
  metafile: true,
  logLevel: "warning",
});
chmodSync(outfile, 0o755);
const [output] = Object.values(result.metafile.outputs);
console.log(`cli/dist/svc.mjs: ${Math.round(output!.bytes / 1024)} KiB from ${Object.keys(output!.inputs).length} modules`);

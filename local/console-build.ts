// The console's build (console/vite.config.ts) into console-out/, the directory Workers Assets serve:
// `npm start` and the end-to-end tests run it first, so the console is there on the first page load.
import { build } from "vite";

export async function buildConsole(): Promise<void> {
  await build({ configFile: new URL("../console/vite.config.ts", import.meta.url).pathname, logLevel: "warn" });
}

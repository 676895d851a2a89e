// `npm run site:check -- <control plane origin> [pinned copy]`: the deploy check. Compares the API
// version of the site's pinned description (site/dist/openapi.json, from `npm run site:build`) with
// the live /openapi.json of a deployment. Exit 0 when they agree, 1 when they disagree, 2 when either
// cannot be read.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const PINNED = fileURLToPath(new URL("./dist/openapi.json", import.meta.url));

type Described = { openapi?: unknown; info?: { version?: unknown; "x-site-revision"?: unknown } };

function fail(message: string, code: number): number {
  console.error(message);
  return code;
}

export async function checkDeployment(origin: string, pinnedPath = PINNED): Promise<number> {
  let pinned: Described;
  try {
    pinned = JSON.parse(readFileSync(pinnedPath, "utf8")) as Described;
  } catch {
    return fail(`No pinned description at ${pinnedPath}: run npm run site:build first.`, 2);
  }
  let base: URL;
  try {
    base = new URL(origin);
  } catch {
    return fail(`"${origin}" is not an address; give the control plane's origin, such as https://cp.example.com.`, 2);
  }
  const live = await fetch(new URL("/openapi.json", base), { signal: AbortSignal.timeout(15_000), redirect: "error" })
    .then(async (response) => (response.ok ? ((await response.json()) as Described) : Promise.reject(new Error(`answered ${response.status}`))))
    .catch((error: Error) => error);
  if (live instanceof Error) return fail(`Could not read ${new URL("/openapi.json", base)}: ${live.message}.`, 2);
  const pinnedVersion = String(pinned.info?.version);
  const liveVersion = String(live.info?.version);
  if (pinnedVersion !== liveVersion || pinned.openapi !== live.openapi) {
    return fail(
      `The API versions disagree: the site pins ${pinnedVersion} (OpenAPI ${String(pinned.openapi)}, site revision ${String(pinned.info?.["x-site-revision"])}), ` +
        `${base.origin} serves ${liveVersion} (OpenAPI ${String(live.openapi)}). Deploy the matching site or control plane.`,
      1,
    );
  }
  console.log(`The API versions agree: ${pinnedVersion} (OpenAPI ${String(pinned.openapi)}) on the site and at ${base.origin}.`);
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [origin, pinnedPath] = process.argv.slice(2);
  process.exitCode = origin ? await checkDeployment(origin, pinnedPath) : fail("Usage: npm run site:check -- <control plane origin> [pinned openapi.json]", 2);
}

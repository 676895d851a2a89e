// After a deploy: the control plane's /readyz answers 200, ready, with the version and commit just
// stamped, and the site answers its /api. Each is asked again for a while, since a new version takes
// seconds to reach every location and a suspended database compute a moment to wake.

export interface Stamp {
  version: string;
  commit: string;
}

export interface Readiness {
  status: number;
  ready?: unknown;
  version?: unknown;
  commit?: unknown;
  reason?: unknown;
}

export interface Patience {
  deadlineMs: number;
  intervalMs: number;
}

const PATIENCE: Patience = { deadlineMs: 90_000, intervalMs: 3_000 };
const ANSWER_MS = 10_000;

const ask = (address: string) => fetch(address, { signal: AbortSignal.timeout(ANSWER_MS), redirect: "error" });

/** One GET of `<base>/readyz`; rejects when nothing answers. */
export async function readiness(base: string): Promise<Readiness> {
  const response = await ask(new URL("/readyz", base).href);
  const body = (await response.json().catch(() => ({}))) as Omit<Readiness, "status">;
  return { ...body, status: response.status };
}

/** Asks until `attempt` answers null (as expected) or the deadline passes; otherwise it says what it saw. */
async function keepAsking(patience: Patience, expected: string, attempt: () => Promise<string | null>): Promise<void> {
  const deadline = Date.now() + patience.deadlineMs;
  for (;;) {
    const seen = await attempt().catch((error: Error) => `did not answer (${error.message})`);
    if (seen === null) return;
    if (Date.now() + patience.intervalMs > deadline) throw new Error(`${seen} after ${Math.round(patience.deadlineMs / 1000)} s; expected ${expected}.`);
    await new Promise((resolve) => setTimeout(resolve, patience.intervalMs));
  }
}

/** Resolves once /readyz is ready with `stamp`; rejects with its last answer at the deadline. */
export async function expectReady(base: string, stamp: Stamp, patience = PATIENCE): Promise<string> {
  const address = new URL("/readyz", base).href;
  const expected = `200, ready, version ${stamp.version}, commit ${stamp.commit}`;
  await keepAsking(patience, expected, async () => {
    const { status, ready, version, commit, reason } = await readiness(base);
    if (status === 200 && ready === true && version === stamp.version && commit === stamp.commit) return null;
    return `${address} answered ${status} ${JSON.stringify({ ready, version, commit, reason })}`;
  });
  return `${address}: ${expected}`;
}

/** Resolves once the site answers `GET /api` with its list of endpoints. */
export async function expectSite(origin: string, patience = PATIENCE): Promise<string> {
  const address = new URL("/api", origin).href;
  await keepAsking(patience, `200 with {"endpoints": []}`, async () => {
    const response = await ask(address);
    const body = (await response.json().catch(() => null)) as { endpoints?: unknown } | null;
    return response.status === 200 && Array.isArray(body?.endpoints) ? null : `${address} answered ${response.status}`;
  });
  return `${address}: 200, the site's API`;
}

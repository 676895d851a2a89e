// What the Worker logs while `work` runs: worker/log.ts writes one JSON line per event to the console,
// which the Worker under test shares with the test.
type Method = "log" | "warn" | "error";

export interface Captured {
  /** Every line, as written. */
  text: string;
  /** The line of `event`, parsed; throws when there is none. */
  event: (name: string) => Record<string, unknown>;
}

export async function captureLogs(work: () => Promise<unknown>): Promise<Captured> {
  const lines: string[] = [];
  const originals = { log: console.log, warn: console.warn, error: console.error };
  for (const method of Object.keys(originals) as Method[]) console[method] = (...args: unknown[]) => lines.push(args.map(String).join(" "));
  try {
    await work();
  } finally {
    Object.assign(console, originals);
  }
  return {
    text: lines.join("\n"),
    event: (name) => {
      const entry = lines.map(parse).find((line) => line?.event === name);
      if (!entry) throw new Error(`No ${name} line among:\n${lines.join("\n")}`);
      return entry;
    },
  };
}

/** Runs `work`, which provokes failures on purpose, without printing what the Worker logs meanwhile. */
export async function quietly<T>(work: () => Promise<T>): Promise<T> {
  let value: T | undefined;
  await captureLogs(async () => {
    value = await work();
  });
  return value as T;
}

function parse(line: string): Record<string, unknown> | null {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
}

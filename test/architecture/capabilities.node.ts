// Between the rooms (DESIGN: map of the code). Inside worker/ a module is one of three kinds:
// plumbing, which imports no capability; a capability (one folder), which imports plumbing and other
// capabilities (only through their front door, index.ts) but never a composition root, and no two of
// which import each other, even for types; and the composition roots, which import capabilities to
// wire them together.
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { GRAPH, ROOT } from "./graph";

/** Folders and root files of worker/ that are plumbing. */
const PLUMBING = new Set([
  "http",
  "openapi",
  "shared",
  "config",
  "storage",
  "trpc",
  "env.ts",
  "log.ts",
  "object-calls.ts",
  "object-interfaces.ts",
  "cron-names.ts",
  "live-channel.ts",
  "isolate-memory.ts",
]);
/** The composition roots: the apps, the entry, the Cron handler, the router and what wires it. */
const COMPOSITION = new Set(["rpc", "app.ts", "app-base.ts", "apps.ts", "engine-app.ts", "index.ts", "scheduled.ts", "credentials.ts", "known-event-types.ts"]);

/** A worker/ file's unit: its folder, or itself for a file at the root of worker/. */
const unitOf = (file: string) => file.split("/")[1]!;
const kindOf = (unit: string) => (PLUMBING.has(unit) ? "plumbing" : COMPOSITION.has(unit) ? "composition" : "capability");

/** Every import from one unit of worker/ into another, type-only ones included. */
const CROSSING = [...GRAPH].flatMap(([file, edges]) =>
  file.startsWith("worker/")
    ? edges.filter(({ to }) => to.startsWith("worker/") && unitOf(to) !== unitOf(file)).map(({ to }) => ({ file, to, from: unitOf(file), target: unitOf(to) }))
    : [],
);

/** Groups of more than one capability that reach each other through their imports (Tarjan, by unit). */
function capabilityCycles(): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, target } of CROSSING) {
    if (kindOf(from) !== "capability" || kindOf(target) !== "capability") continue;
    next.set(from, (next.get(from) ?? new Set()).add(target));
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (unit: string) => {
    index.set(unit, index.size);
    low.set(unit, index.get(unit)!);
    stack.push(unit);
    for (const to of next.get(unit) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(unit, Math.min(low.get(unit)!, low.get(to)!));
      } else if (stack.includes(to)) low.set(unit, Math.min(low.get(unit)!, index.get(to)!));
    }
    if (low.get(unit) !== index.get(unit)) return;
    const group = stack.splice(stack.indexOf(unit));
    if (group.length > 1) found.push(group.sort());
  };
  for (const unit of next.keys()) if (!index.has(unit)) visit(unit);
  return found;
}

describe("between the capabilities", () => {
  it("reads the crossings, type imports included", () => {
    expect(CROSSING).toContainEqual(expect.objectContaining({ file: "worker/app.ts", target: "mcp" }));
    expect(kindOf("http")).toBe("plumbing");
    expect(kindOf("workloads")).toBe("capability");
  });

  it("keeps plumbing free of capabilities and composition roots", () => {
    const found = CROSSING.filter(({ from, target }) => kindOf(from) === "plumbing" && kindOf(target) !== "plumbing");
    expect(found.map(({ file, to }) => `${file} -> ${to}`)).toEqual([]);
  });

  it("has no capability importing a composition root", () => {
    const found = CROSSING.filter(({ from, target }) => kindOf(from) === "capability" && kindOf(target) === "composition");
    expect(found.map(({ file, to }) => `${file} -> ${to}`)).toEqual([]);
  });

  it("has capabilities meet at their front doors: another capability's index.ts, never its store.ts or any other module", () => {
    const found = CROSSING.filter(
      ({ from, target, to }) => kindOf(from) === "capability" && kindOf(target) === "capability" && to !== `worker/${target}/index.ts`,
    );
    expect(found.map(({ file, to }) => `${file} -> ${to}`)).toEqual([]);
  });

  it("has front doors that only open onto their own folder", () => {
    const doors = [...GRAPH].filter(([file]) => /^worker\/[^/]+\/index\.ts$/.test(file) && kindOf(unitOf(file)) === "capability");
    expect(doors.length).toBeGreaterThan(10);
    for (const [file, edges] of doors) for (const { to } of edges) expect(`${file} -> ${to}`).toMatch(new RegExp(`-> worker/${unitOf(file)}/`));
  });

  it("has no two capabilities reaching each other through their imports", () => {
    expect(capabilityCycles()).toEqual([]);
  });
});

describe("the Durable Objects", () => {
  const objects = [...GRAPH.keys()].filter((file) => file.startsWith("durable-objects/"));

  it("are thin adapters: at run time they import plumbing; the capabilities' rules only through environment-work.ts, loaded on first call", () => {
    expect(objects).toContain("durable-objects/environment-work.ts");
    const found = objects
      .filter((file) => file !== "durable-objects/environment-work.ts")
      .flatMap((file) => GRAPH.get(file)!.map((edge) => ({ file, ...edge })))
      .filter(({ to, typeOnly }) => !typeOnly && to.startsWith("worker/") && kindOf(unitOf(to)) !== "plumbing");
    expect(found.map(({ file, to }) => `${file} -> ${to}`)).toEqual([]);
  });

  it("keep their members private with #, which the object's RPC cannot reach (TypeScript's private it can)", () => {
    const declared = objects.filter((file) => /(^|[(,])\s*private\s/m.test(readFileSync(`${ROOT}${file}`, "utf8")));
    expect(declared).toEqual([]);
  });
});

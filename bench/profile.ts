// A CPU profile of the Worker while `work` runs, through its inspector (BENCH_INSPECTOR_PORT), summed
// by function: where a benchmark's time goes inside workerd. The bundle's names are minified, so each
// function is shown with the place in our source (or a dependency's) where it starts, read through the
// bundle's source map.
import { readFileSync } from "node:fs";
import { SourceMap, type SourceMapPayload } from "node:module";
import { dirname } from "node:path";
import WebSocket from "ws";
import { sourcePlace } from "../cli/commands/frames";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

/** `name source:line` for a profile node: the bundle's position read through its source map. */
function namer(sourceMapFile: string): (node: Node) => string {
  const map = new SourceMap(JSON.parse(readFileSync(sourceMapFile, "utf8")) as SourceMapPayload);
  const root = process.cwd();
  return ({ callFrame: { functionName, url, lineNumber, columnNumber } }) => {
    const place = url && lineNumber >= 0 ? sourcePlace(map, dirname(sourceMapFile), root, lineNumber, columnNumber) : null;
    // A dependency is named by its package path, our own code by its path in the repository.
    const where = place ? `${place.file.replace(/^.*?node_modules\//, "")}:${place.line}` : `${url.split("/").pop()}:${lineNumber}`;
    return `${functionName || "(anonymous)"} ${where}`;
  };
}

/** A DevTools protocol session with the Worker's isolate (the first target workerd's inspector lists). */
export async function inspect(inspectorPort: number): Promise<{ command: (method: string, params?: object) => Promise<any>; close: () => void }> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json()) as Array<{ webSocketDebuggerUrl: string }>;
  const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl);
  await new Promise((resolve) => socket.once("open", resolve));
  let sent = 0;
  const waiting = new Map<number, (result: any) => void>();
  socket.on("message", (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown };
    if (message.id) waiting.get(message.id)?.(message.result);
  });
  const command = (method: string, params: object = {}) =>
    new Promise<any>((resolve) => {
      waiting.set(++sent, resolve);
      socket.send(JSON.stringify({ id: sent, method, params }));
    });
  return { command, close: () => socket.close() };
}

export async function profiled(inspectorPort: number, sourceMapFile: string, work: () => Promise<void>): Promise<string> {
  const { command, close } = await inspect(inspectorPort);
  await command("Profiler.enable");
  await command("Profiler.start");
  await work();
  const { profile } = (await command("Profiler.stop")) as { profile: { nodes: Node[]; samples: number[]; timeDeltas: number[] } };
  close();

  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const name = namer(sourceMapFile);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    self.set(name(byId.get(id)!), (self.get(name(byId.get(id)!)) ?? 0) + us);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const key = name(byId.get(at)!);
      if (!seen.has(key)) inclusive.set(key, (inclusive.get(key) ?? 0) + us);
      seen.add(key);
    }
  });
  const top = (totals: Map<string, number>) =>
    [...totals]
      .sort((a, b) => b[1] - a[1])
      .slice(0, Number(process.env.BENCH_PROFILE_TOP ?? 25))
      .map(([key, us]) => `${(us / 1000).toFixed(1).padStart(9)} ms  ${key}`)
      .join("\n");
  return `self time\n${top(self)}\ninclusive time\n${top(inclusive)}`;
}

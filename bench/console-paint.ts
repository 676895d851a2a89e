// The console's first paint, cold: Chromium opens the built console (console-out/, or the folder
// named by --dir) in a fresh context each time, so nothing is cached, and the figure is when the first
// heading was painted (first-contentful-paint) and when the sign-in page's heading stood in the page.
// The files are served from this process with the Worker's own answer to a signed-out browser's
// GET /auth/session (401), so the figure is the console's own: its script and style fetched, parsed
// and run, and its first page drawn, not the database's. Prints the gzipped size of what it loads too.
//
//   npm run build:console && npm run bench:paint [-- --dir other-build] [--json]
import { createServer, type Server } from "node:http";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { extname, join, normalize } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { findChromium } from "../test/e2e/setup/chromium";
import { median, percentile } from "./figures";

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const args = process.argv.slice(2);
const dir = args.includes("--dir") ? args[args.indexOf("--dir") + 1]! : "console-out";

const TYPES: Record<string, string> = { ".js": "text/javascript", ".css": "text/css", ".html": "text/html", ".svg": "image/svg+xml", ".ico": "image/x-icon" };

/** The build's files, and the Worker's answer to a signed-out browser; every other address is the console's page. */
function serve(root: string): Promise<{ server: Server; url: string }> {
  const index = readFileSync(join(root, "index.html"));
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    if (path === "/auth/session") {
      response.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: { code: "unauthenticated", message: "Sign in first." } }));
      return;
    }
    const file = normalize(join(root, path));
    if (file.startsWith(normalize(root)) && path !== "/" && statSync(file, { throwIfNoEntry: false })?.isFile()) {
      response.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(readFileSync(file));
      return;
    }
    response.writeHead(200, { "content-type": "text/html" }).end(index);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/` })),
  );
}

/** What the first page loads, gzipped as it travels: script and style. */
function shipped(root: string): { file: string; gzip: number }[] {
  const assets = join(root, "assets");
  return readdirSync(assets)
    .filter((file) => /\.(js|css)$/.test(file))
    .map((file) => ({ file, gzip: gzipSync(readFileSync(join(assets, file))).length }));
}

const { server, url } = await serve(dir);
const browser = await chromium.launch({ executablePath: findChromium() });
const paint: number[] = [];
const heading: number[] = [];
try {
  for (let run = 0; run < RUNS; run++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(url);
    await page.getByRole("heading", { level: 1 }).first().waitFor();
    // In the page (this file's types know no DOM): the paint entry, and now, both from navigation start.
    const [fcp, now] = await page.evaluate<[number, number]>(
      "[performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN, performance.now()]",
    );
    paint.push(fcp);
    heading.push(now);
    await context.close();
  }
} finally {
  await browser.close();
  server.close();
}

const files = shipped(dir);
const figures = {
  dir,
  runs: RUNS,
  gzipKB: Number((files.reduce((sum, file) => sum + file.gzip, 0) / 1024).toFixed(1)),
  firstPaintMs: { p50: Number(median(paint).toFixed(1)), p90: Number(percentile(paint, 90).toFixed(1)) },
  headingSeenMs: { p50: Number(median(heading).toFixed(1)), p90: Number(percentile(heading, 90).toFixed(1)) },
};
if (args.includes("--json")) console.log(JSON.stringify(figures));
else {
  console.log(`console build ${dir}: ${figures.gzipKB} KB of script and style, gzipped (${files.map((file) => `${file.file} ${file.gzip} B`).join(", ")})`);
  console.log(`first paint, cold, ${RUNS} runs: p50 ${figures.firstPaintMs.p50} ms, p90 ${figures.firstPaintMs.p90} ms`);
  console.log(`the first page's heading in the page: p50 ${figures.headingSeenMs.p50} ms, p90 ${figures.headingSeenMs.p90} ms`);
}

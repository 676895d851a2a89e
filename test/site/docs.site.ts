// The documentation stays true to the code: docs/api.md is what `npm run docs:api` generates from
// /openapi.json now, and every relative link of every README (and of docs/) reaches a file that exists,
// and a heading there when it names one.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url).pathname;
const SKIP = new Set(["node_modules", ".git", ".data", ".wrangler", "console-out", "dist"]);
const dir = mkdtempSync(join(tmpdir(), "svc-docs-"));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function markdownFiles(at = ROOT): string[] {
  return readdirSync(at, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const path = join(at, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name === "README.md" || (entry.name.endsWith(".md") && relative(ROOT, at) === "docs") ? [path] : [];
  });
}

/** The anchors GitHub gives a file's headings (lower case, punctuation dropped, spaces as dashes, repeats numbered), and explicit ids. */
function anchors(file: string): Set<string> {
  const text = readFileSync(file, "utf8").replace(/^```[\s\S]*?^```/gm, "");
  const seen = new Map<string, number>();
  const found = new Set<string>([...text.matchAll(/<a id="([^"]+)"><\/a>/g)].map(([, id]) => id!));
  for (const [, heading = ""] of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count ? `${slug}-${count}` : slug);
  }
  return found;
}

/** Every relative link of a Markdown file that does not lead where it says (file, or heading in it). */
function brokenLinks(file: string): string[] {
  const text = readFileSync(file, "utf8")
    .replace(/^```[\s\S]*?^```/gm, "")
    .replace(/`[^`\n]*`/g, "");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].flatMap(([, target = ""]) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return [];
    const [path = "", anchor] = target.split("#");
    const to = path ? join(dirname(file), decodeURIComponent(path)) : file;
    const where = `${relative(ROOT, file)} -> ${target}`;
    if (!existsSync(to)) return [`${where} (no such file)`];
    if (anchor && statSync(to).isFile() && to.endsWith(".md") && !anchors(to).has(anchor)) return [`${where} (no such heading)`];
    return [];
  });
}

describe("the documentation", () => {
  it("has docs/api.md as npm run docs:api generates it from /openapi.json", async () => {
    const fresh = join(dir, "api.md");
    await new Promise<void>((resolve, reject) =>
      execFile(
        process.execPath,
        ["--import", "tsx", "--import", "./site/build/register.mjs", "site/build/api-docs.ts", "--out", fresh],
        { cwd: ROOT },
        (error) => (error ? reject(error) : resolve()),
      ),
    );
    const committed = readFileSync(join(ROOT, "docs/api.md"), "utf8");
    expect(committed === readFileSync(fresh, "utf8"), "docs/api.md is stale: run npm run docs:api").toBe(true);
  });

  it("has no relative link in a README or in docs/ that leads nowhere", () => {
    const files = markdownFiles();
    expect(files.map((file) => relative(ROOT, file))).toContain("README.md");
    expect(files.flatMap(brokenLinks)).toEqual([]);
  });
});

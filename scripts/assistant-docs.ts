// The website assistant's documentation index (worker/assistant/README.md): the site's pages
// (site/pages/, as `npm run site:build` finds them), the API reference (docs/api.md, shown on the
// site at /docs/api) and the error catalog (the site's /docs/errors), cut into sections with their
// title and site path, indexed with MiniSearch and serialized into a module the Worker loads.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import MiniSearch from "minisearch";
import { INDEX_OPTIONS, type DocSection } from "../worker/assistant/search";
import { ERROR_CATALOG } from "../worker/http/catalog";

/** A section longer than this is cut into parts, so one excerpt never crowds out the others. */
export const SECTION_MAX_CHARS = 1200;

type Part = Omit<DocSection, "id">;

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", nbsp: " " };

/** Markup's text: tags dropped, entities read, whitespace collapsed. */
export function htmlText(markup: string): string {
  return markup
    .replace(/<[^>]*>/g, " ")
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, name: string) => ENTITIES[name]!)
    .replace(/\s+/g, " ")
    .trim();
}

/** Markdown's text: links as their words, code marks and table rules dropped, whitespace collapsed. */
export function markdownText(markdown: string): string {
  return markdown
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/`/g, "")
    .replace(/^\|?\s*-{3,}.*$/gm, " ")
    .replace(/\|/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** Cuts `text` into parts of at most `max` characters, at a sentence end where there is one. */
export function cut(text: string, max = SECTION_MAX_CHARS): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const window = rest.slice(0, max);
    const end = Math.max(window.lastIndexOf(". "), window.lastIndexOf("; "));
    const at = end > max / 2 ? end + 1 : window.lastIndexOf(" ") > max / 2 ? window.lastIndexOf(" ") : max;
    parts.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest) parts.push(rest);
  return parts;
}

const sectionsOf = (title: string, path: string, text: string): Part[] => cut(text).map((part) => ({ title, path, text: part }));

/** The site path of a page file: `index.html` is `/`, `docs/index.html` `/docs/`, `pricing.html` `/pricing`. */
export const pagePath = (file: string) => `/${file.split(sep).join("/")}`.replace(/index\.html$/, "").replace(/\.html$/, "");

/** A page of site/pages/: one section per `<h1>`/`<h2>` heading, linked to the heading's anchor. */
export function pageSections(source: string, path: string): Part[] {
  const pageTitle = /^<!-- title: (.+?) -->/.exec(source)?.[1] ?? path;
  const body = source.replace(/^<!-- title: .+? -->\n?/, "");
  const headings = [...body.matchAll(/<h([12])(?:\s+id="([^"]*)")?[^>]*>([\s\S]*?)<\/h\1>/g)];
  const starts = [0, ...headings.map((heading) => heading.index)];
  return starts.flatMap((start, i) => {
    const heading = i === 0 ? null : headings[i - 1]!;
    const end = starts[i + 1] ?? body.length;
    const text = htmlText(body.slice(heading ? start + heading[0].length : start, end));
    if (!text) return [];
    const name = heading ? htmlText(heading[3]!) : "";
    const title = heading && name !== pageTitle ? `${pageTitle}: ${name}` : pageTitle;
    return sectionsOf(title, heading?.[2] ? `${path}#${heading[2]}` : path, text);
  });
}

/** docs/api.md: one section per operation (`### ...`), linked to its tag on the site's API reference; the schemas are left out. */
export function apiSections(markdown: string): Part[] {
  const parts: Part[] = [];
  let tag: string | null = null;
  for (const block of markdown.split(/^(?=#{2,3} )/m)) {
    const heading = /^(#{2,3}) (.+)$/m.exec(block);
    if (!heading || !block.startsWith("#")) continue;
    if (heading[1] === "##") {
      tag = heading[2]!.trim();
      if (tag === "Schemas") break;
      continue;
    }
    const text = markdownText(block.slice(heading[0].length));
    if (tag && text) parts.push(...sectionsOf(`API: ${markdownText(heading[2]!)}`, `/docs/api#tag-${encodeURIComponent(tag)}`, text));
  }
  return parts;
}

/** The error catalog: one section per code, linked to its row of the site's error page. */
export const errorSections = (): Part[] =>
  Object.entries(ERROR_CATALOG).map(([code, entry]) => ({
    title: `Error ${code} (${entry.status})`,
    path: `/docs/errors#${code}`,
    text: `${entry.message} ${entry.resolution}`,
  }));

const walk = (dir: string): string[] =>
  readdirSync(dir)
    .sort()
    .flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : [join(dir, name)]));

/** Every section, in a fixed order, numbered. */
export function docSections(root: string): DocSection[] {
  const pages = join(root, "site", "pages");
  const parts = [
    ...walk(pages)
      .filter((file) => file.endsWith(".html") && !file.endsWith("404.html"))
      .flatMap((file) => pageSections(readFileSync(file, "utf8"), pagePath(relative(pages, file)))),
    ...apiSections(readFileSync(join(root, "docs", "api.md"), "utf8")),
    ...errorSections(),
  ];
  return parts.map((part, id) => ({ id, ...part }));
}

/**
 * `text` as a string literal the way the formatter (Biome) writes it: in the quote that needs fewer
 * escapes, double on a tie, so the committed module stays as generated.
 */
export function stringLiteral(text: string): string {
  const quote = (text.match(/"/g)?.length ?? 0) > (text.match(/'/g)?.length ?? 0) ? "'" : '"';
  return quote + text.replace(/\\/g, "\\\\").replaceAll(quote, `\\${quote}`) + quote;
}

/**
 * worker/assistant/docs-index.txt: the serialized index (MiniSearch's JSON). Data, not code: the Worker
 * imports it as a text module beside its script (wrangler.toml [[rules]]), so it is not in index.js.
 */
export function docsIndexText(root: string): string {
  const index = new MiniSearch<DocSection>(INDEX_OPTIONS);
  index.addAll(docSections(root));
  return `${JSON.stringify(index)}\n`;
}

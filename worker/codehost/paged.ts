// Reading a whole list from the code host's REST API: every page, following `Link: rel="next"` as the
// code host sends it, bounded in pages. A list read in part is worse than none (a members sync would
// remove whoever sits on a page it did not read), so any page that fails fails the whole read.
import { callCodehost, CodehostUnreachable, describeAnswer } from "./codehost-api";

/** The list could not be read whole; `message` says which page and why, for a sentence. */
export class CodehostListFailed extends Error {
  override readonly name = "CodehostListFailed";
}

const PER_PAGE = 100;
/** 10,000 entries at 100 a page: beyond that the read is refused rather than run on. */
const MAX_PAGES = 100;

/** The target of the `rel="next"` link in a `Link` header, if any. */
function nextTarget(link: string | null): string | null {
  for (const [, target, params] of (link ?? "").matchAll(/<([^>]*)>([^<]*)/g)) {
    const rel = /;\s*rel\s*=\s*"?([^";,]*)/i.exec(params!)?.[1] ?? "";
    if (rel.toLowerCase().split(/\s+/).includes("next")) return target!;
  }
  return null;
}

/** `target` as a path under the API base, or null when it points anywhere else (never follow a list off the host). */
function underApiBase(apiBase: string, target: string): string | null {
  const base = new URL(apiBase.replace(/\/+$/, ""));
  let url: URL;
  try {
    url = new URL(target, base);
  } catch {
    return null;
  }
  const basePath = base.pathname.replace(/\/+$/, "");
  if (url.origin !== base.origin || !url.pathname.startsWith(`${basePath}/`)) return null;
  return url.pathname.slice(basePath.length) + url.search;
}

/** Every entry of the list at `path` (which may carry a query), page by page, 100 a page. */
export async function readAllPages(apiBase: string, path: string, bearer: string): Promise<unknown[]> {
  const entries: unknown[] = [];
  let next: string | null = `${path}${path.includes("?") ? "&" : "?"}per_page=${PER_PAGE}`;
  for (let page = 1; next !== null; page++) {
    if (page > MAX_PAGES) throw new CodehostListFailed(`${path} runs past ${MAX_PAGES} pages`);
    const answer = await callCodehost(apiBase, "GET", next, bearer).catch((error: unknown) => {
      throw error instanceof CodehostUnreachable ? new CodehostListFailed(`page ${page} of ${path}: ${error.message}`) : error;
    });
    if (answer.status < 200 || answer.status > 299) throw new CodehostListFailed(`page ${page} of ${path} answered ${describeAnswer(answer)}`);
    if (!Array.isArray(answer.body)) throw new CodehostListFailed(`page ${page} of ${path} was not a list`);
    entries.push(...answer.body);
    const target = nextTarget(answer.link);
    next = target === null ? null : underApiBase(apiBase, target);
    if (target !== null && next === null) throw new CodehostListFailed(`page ${page} of ${path} links its next page off the code host`);
  }
  return entries;
}

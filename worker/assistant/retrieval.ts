// The documentation index, read on the first question an isolate is asked (the ask route imports
// this module lazily), and the sections a question finds, best first. The index is data, 136 kB of
// MiniSearch's JSON: a text module beside the Worker's script (wrangler.toml [[rules]]), not in it.
import MiniSearch from "minisearch";
import DOCS_INDEX from "./docs-index.txt";
import type { Excerpt } from "./prompt";
import { INDEX_OPTIONS, QUERY_OPTIONS, type DocSection } from "./search";

let index: MiniSearch<DocSection> | null = null;

export function rankedSections(question: string): Excerpt[] {
  index ??= MiniSearch.loadJSON<DocSection>(DOCS_INDEX, INDEX_OPTIONS);
  return index.search(question, QUERY_OPTIONS).map((result) => ({ title: result.title as string, path: result.path as string, text: result.text as string }));
}

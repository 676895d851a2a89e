// The documentation index, loaded on the first question an isolate is asked (the ask route imports
// this module lazily: the index is 150 kB the Worker's start does not need), and the sections a
// question finds, best first.
import MiniSearch from "minisearch";
import { DOCS_INDEX } from "./docs-index";
import type { Excerpt } from "./prompt";
import { INDEX_OPTIONS, QUERY_OPTIONS, type DocSection } from "./search";

let index: MiniSearch<DocSection> | null = null;

export function rankedSections(question: string): Excerpt[] {
  index ??= MiniSearch.loadJSON<DocSection>(DOCS_INDEX, INDEX_OPTIONS);
  return index.search(question, QUERY_OPTIONS).map((result) => ({ title: result.title as string, path: result.path as string, text: result.text as string }));
}

// A page's elements as a browser's parser sees them (the runtime's HTMLRewriter), so a test can say
// which elements exist and what attributes they carry, not only what text the body holds.
export interface Element {
  tag: string;
  attributes: Record<string, string>;
}

export async function elementsOf(html: string): Promise<Element[]> {
  const found: Element[] = [];
  const rewriter = new HTMLRewriter().on("*", {
    element(element) {
      found.push({ tag: element.tagName, attributes: Object.fromEntries(element.attributes) });
    },
  });
  await rewriter.transform(new Response(html)).text();
  return found;
}

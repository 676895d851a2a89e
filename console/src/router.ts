// A small path router over the History API: the address is the state, links navigate without a reload.
import { useEffect, useState } from "preact/hooks";

const NAVIGATED = "console:navigated";

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  window.dispatchEvent(new Event(NAVIGATED));
}

/** The current path and query, re-rendering on every navigation. */
export function useLocation(): URL {
  const [href, setHref] = useState(location.href);
  useEffect(() => {
    const update = () => setHref(location.href);
    window.addEventListener("popstate", update);
    window.addEventListener(NAVIGATED, update);
    return () => {
      window.removeEventListener("popstate", update);
      window.removeEventListener(NAVIGATED, update);
    };
  }, []);
  return new URL(href);
}

/** Follows a same-origin link in place; a modified click (new tab, download) is left to the browser. */
export function followLink(event: MouseEvent): void {
  const anchor = event.currentTarget as HTMLAnchorElement;
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  if (anchor.origin !== location.origin || anchor.target) return;
  event.preventDefault();
  navigate(anchor.pathname + anchor.search);
  window.scrollTo(0, 0);
}

/** `pattern` like "/o/:slug/environments/:envId"; the named parts, decoded, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split("/");
  const have = path.replace(/\/+$/, "").split("/");
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (const [index, part] of want.entries()) {
    if (part.startsWith(":")) params[part.slice(1)] = decodeURIComponent(have[index]!);
    else if (part !== have[index]) return null;
  }
  return params;
}

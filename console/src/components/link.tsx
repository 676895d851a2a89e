import type { ComponentChildren } from "preact";
import { followLink } from "../router";

/** `current`: true for the page shown, "within" for the entry whose group holds it (the sidebar's Settings). */
export const Link = ({ href, children, current }: { href: string; children: ComponentChildren; current?: boolean | "within" }) => (
  <a href={href} onClick={followLink} aria-current={current === "within" ? "true" : current ? "page" : undefined}>
    {children}
  </a>
);

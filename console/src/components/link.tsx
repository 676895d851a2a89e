import type { ComponentChildren } from "preact";
import { followLink } from "../router";

export const Link = ({ href, children, current }: { href: string; children: ComponentChildren; current?: boolean }) => (
  <a href={href} onClick={followLink} aria-current={current ? "page" : undefined}>
    {children}
  </a>
);

// What an action said, kept when the action's own button goes away: an action often changes the very
// row it sits in (a session ended, a commit approved), and the reload that follows removes the button
// and the sentence beside it. The layout shows the last such sentence until the page changes.
import { createContext } from "preact";

export const AnnounceContext = createContext<(sentence: string) => void>(() => {});

// A list the server answers a page at a time (`{ items, nextCursor }`, worker/http/paging.ts): the
// first page loads like any data (and `reload` starts over from it); "Show more" appends the next. A
// change heard on the live channel reads again as many pages as are shown, replacing them at once.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { type LiveInterest, useLiveReload } from "../live";
import type { Loaded } from "../load";
import { describeFailure, type Failure } from "../rpc";
import { FailureNote } from "./feedback";

export interface PageOf<T> {
  items: T[];
  nextCursor: string | null;
}

export interface Paged<T> extends Loaded<T[]> {
  /** Fetches and appends the next page; null when the last page is shown. */
  more: (() => void) | null;
  /** Why the last "Show more" failed (the pages shown stay). */
  moreFailure: Failure | null;
}

export function usePaged<T>(load: (cursor: string | undefined) => Promise<PageOf<T>>, deps: unknown[], live?: LiveInterest): Paged<T> {
  const [state, setState] = useState<{
    data?: T[];
    next: string | null;
    failure: Failure | null;
    moreFailure: Failure | null;
    loading: boolean;
    heard: number;
  }>({
    next: null,
    failure: null,
    moreFailure: null,
    loading: true,
    heard: 0,
  });
  const [round, setRound] = useState(0);
  // Answers of an earlier round (another organization, a reload) are dropped.
  const current = useRef(0);
  const latestLoad = useRef(load);
  latestLoad.current = load;
  // What is shown, as the next step reads it: how many pages, and the cursor after the last.
  const shown = useRef<{ pages: number; next: string | null }>({ pages: 0, next: null });
  // One step at a time (the first page, "Show more", a live re-read): a re-read never loses a page
  // "Show more" is adding, and "Show more" never appends to a list a re-read is replacing.
  const steps = useRef<Promise<void>>(Promise.resolve());
  const step = (work: (mine: number) => Promise<void>) => {
    const mine = current.current;
    steps.current = steps.current.then(() => (mine === current.current ? work(mine) : undefined));
  };

  /** Reads `pages` pages from the first (at least one) and shows them in place of what was shown (`heard`: because of a live change). */
  const readPages = async (mine: number, pages: number, heard = false) => {
    const items: T[] = [];
    let next: string | null = null;
    let read = 0;
    do {
      const answer: PageOf<T> = await latestLoad.current(next ?? undefined);
      items.push(...answer.items);
      next = answer.nextCursor;
      read += 1;
    } while (read < pages && next !== null);
    if (mine !== current.current) return;
    shown.current = { pages: read, next };
    setState((previous) => ({ data: items, next, failure: null, moreFailure: null, loading: false, heard: previous.heard + (heard ? 1 : 0) }));
  };

  useEffect(() => {
    current.current += 1;
    setState((previous) => ({ ...previous, loading: true, moreFailure: null }));
    step((mine) =>
      readPages(mine, 1).catch((error: unknown) => {
        if (mine === current.current) setState((previous) => ({ ...previous, failure: describeFailure(error), loading: false }));
      }),
    );
  }, [...deps, round]);
  const reload = useCallback(() => setRound((value) => value + 1), []);
  // A change heard live: the pages shown, read again; a failure keeps them (the next change tries again).
  useLiveReload(live, () => step((mine) => readPages(mine, shown.current.pages, true).catch(() => undefined)));
  const more = () => {
    setState((previous) => ({ ...previous, loading: true, moreFailure: null }));
    step(async (mine) => {
      const cursor = shown.current.next;
      try {
        const page = cursor === null ? null : await latestLoad.current(cursor);
        if (mine !== current.current || page === null) return;
        shown.current = { pages: shown.current.pages + 1, next: page.nextCursor };
        setState((previous) => ({ ...previous, data: [...(previous.data ?? []), ...page.items], next: page.nextCursor, loading: false }));
      } catch (error) {
        if (mine === current.current) setState((previous) => ({ ...previous, moreFailure: describeFailure(error), loading: false }));
      }
    });
  };
  return {
    data: state.data,
    failure: state.failure,
    loading: state.loading,
    heard: state.heard,
    reload,
    moreFailure: state.moreFailure,
    more: state.next === null ? null : more,
  };
}

/** The "Show more" button under a paged list: absent once the last page is shown. */
export function ShowMore<T>({ paged }: { paged: Paged<T> }) {
  return (
    <>
      {paged.moreFailure && <FailureNote failure={paged.moreFailure} />}
      {paged.more && paged.data !== undefined && (
        <p>
          <button type="button" class="secondary" disabled={paged.loading} onClick={paged.more}>
            Show more
          </button>
        </p>
      )}
    </>
  );
}

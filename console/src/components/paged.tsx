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
  const [state, setState] = useState<{ data?: T[]; next: string | null; failure: Failure | null; moreFailure: Failure | null; loading: boolean }>({
    next: null,
    failure: null,
    moreFailure: null,
    loading: true,
  });
  const [round, setRound] = useState(0);
  // Answers of an earlier round (another organization, a reload) are dropped.
  const current = useRef(0);
  const pagesShown = useRef(0);
  const latestLoad = useRef(load);
  latestLoad.current = load;
  const fetchPage = async (cursor: string | undefined, mine: number) => {
    setState((previous) => ({ ...previous, loading: true, moreFailure: null }));
    try {
      const page = await load(cursor);
      if (mine !== current.current) return;
      pagesShown.current = cursor === undefined ? 1 : pagesShown.current + 1;
      setState((previous) => ({
        data: cursor === undefined ? page.items : [...(previous.data ?? []), ...page.items],
        next: page.nextCursor,
        failure: null,
        moreFailure: null,
        loading: false,
      }));
    } catch (error) {
      if (mine !== current.current) return;
      const failure = describeFailure(error);
      setState((previous) => (cursor === undefined ? { ...previous, failure, loading: false } : { ...previous, moreFailure: failure, loading: false }));
    }
  };
  useEffect(() => {
    current.current += 1;
    void fetchPage(undefined, current.current);
  }, [...deps, round]);
  const reload = useCallback(() => setRound((value) => value + 1), []);
  // The pages shown, read again from the first; a failure keeps them (the next change tries again).
  const refresh = useCallback(async () => {
    const mine = ++current.current;
    const items: T[] = [];
    let next: string | null = null;
    try {
      for (let page = 0; page < Math.max(1, pagesShown.current); page++) {
        const answer: PageOf<T> = await latestLoad.current(next ?? undefined);
        items.push(...answer.items);
        next = answer.nextCursor;
        if (next === null) break;
      }
    } catch {
      return;
    }
    if (mine === current.current) setState({ data: items, next, failure: null, moreFailure: null, loading: false });
  }, []);
  useLiveReload(live, () => void refresh());
  const { next } = state;
  return {
    data: state.data,
    failure: state.failure,
    loading: state.loading,
    reload,
    moreFailure: state.moreFailure,
    more: next === null ? null : () => void fetchPage(next, current.current),
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

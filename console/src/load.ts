// Loading data for a page and running a person's actions, each with progress and an outcome that
// carries the server's sentence (or, for an unexpected failure, the request id).
import { createContext } from "preact";
import { useCallback, useContext, useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { AnnounceContext } from "./announce";
import { type LiveInterest, useLiveReload } from "./live";
import { describeFailure, type Failure } from "./rpc";

export interface Loaded<T> {
  data?: T;
  failure: Failure | null;
  loading: boolean;
  reload: () => void;
  /** How many times what is shown was read again because of a change heard live (0: never). */
  heard: number;
}

/** The `heard` of the data a part of the page shows (components/feedback.tsx's Show provides it): a table lights what a live change changed. */
export const HeardContext = createContext(0);

/** `live`: what on the live channel makes it read again (the data shown stays until the answer replaces it). */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], live?: LiveInterest): Loaded<T> {
  const [state, setState] = useState<{ data?: T; failure: Failure | null; loading: boolean; heard: number }>({ failure: null, loading: true, heard: 0 });
  const [round, setRound] = useState(0);
  // The next answer is read because of a change heard live.
  const hearing = useRef(false);
  useEffect(() => {
    let current = true;
    const heard = hearing.current;
    hearing.current = false;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => current && setState((previous) => ({ data, failure: null, loading: false, heard: previous.heard + (heard ? 1 : 0) })),
      (error: unknown) => current && setState((previous) => ({ failure: describeFailure(error), loading: false, heard: previous.heard })),
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((value) => value + 1), []);
  useLiveReload(live, () => {
    hearing.current = true;
    reload();
  });
  return { ...state, reload };
}

export type Outcome = { ok: true; message: string } | { ok: false; failure: Failure };

/** An action: `run` answers the sentence to show on success. */
export function useAction<A extends unknown[]>(run: (...args: A) => Promise<string>) {
  const [pending, setPending] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  // A success outlives this component: said by the layout when the component goes away.
  const announce = useContext(AnnounceContext);
  const said = useRef<string | null>(null);
  const mounted = useRef(true);
  // A layout effect: its clean-up is in place as soon as the component is on the page, not after the
  // next paint, so a button removed right after it appeared still hands its sentence over.
  useLayoutEffect(
    () => () => {
      mounted.current = false;
      if (said.current) announce(said.current);
    },
    [announce],
  );
  const start = async (...args: A) => {
    setPending(true);
    setOutcome(null);
    said.current = null;
    try {
      const message = await run(...args);
      said.current = message;
      if (mounted.current) setOutcome({ ok: true, message });
      else announce(message);
    } catch (error) {
      setOutcome({ ok: false, failure: describeFailure(error) });
    } finally {
      setPending(false);
    }
  };
  return { pending, outcome, start };
}

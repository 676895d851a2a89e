// Loading data for a page and running a person's actions, each with progress and an outcome that
// carries the server's sentence (or, for an unexpected failure, the request id).
import { useCallback, useEffect, useState } from "preact/hooks";
import { describeFailure, type Failure } from "./rpc";

export interface Loaded<T> {
  data?: T;
  failure: Failure | null;
  loading: boolean;
  reload: () => void;
}

export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; failure: Failure | null; loading: boolean }>({ failure: null, loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => current && setState({ data, failure: null, loading: false }),
      (error: unknown) => current && setState({ failure: describeFailure(error), loading: false }),
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((value) => value + 1), []);
  return { ...state, reload };
}

export type Outcome = { ok: true; message: string } | { ok: false; failure: Failure };

/** An action: `run` answers the sentence to show on success. */
export function useAction<A extends unknown[]>(run: (...args: A) => Promise<string>) {
  const [pending, setPending] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const start = async (...args: A) => {
    setPending(true);
    setOutcome(null);
    try {
      setOutcome({ ok: true, message: await run(...args) });
    } catch (error) {
      setOutcome({ ok: false, failure: describeFailure(error) });
    } finally {
      setPending(false);
    }
  };
  return { pending, outcome, start };
}

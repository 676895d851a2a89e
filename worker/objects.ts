// Errors from a Durable Object call, as the platform marks them: `retryable` (a transient fault, safe
// to send again), `overloaded` (sending again makes it worse), `remote` (thrown by the object's code).
interface PlatformMarks {
  retryable?: unknown;
  overloaded?: unknown;
  remote?: unknown;
}

export function isDurableObjectError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const marks = error as PlatformMarks;
  return typeof marks.retryable === "boolean" || typeof marks.overloaded === "boolean" || marks.remote === true;
}

/** Calls once more when the platform says the failure was transient (and not an overload). */
export async function retryOnceIfRetryable<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const marks = (error ?? {}) as PlatformMarks;
    if (marks.retryable !== true || marks.overloaded === true) throw error;
    return call();
  }
}

// Bounded fan-out: each call may open its own connection or Durable Object request, so a large batch
// must not start them all at once.

/** Runs `work` for every item with at most `limit` calls in flight; rejects with the first failure. */
export async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

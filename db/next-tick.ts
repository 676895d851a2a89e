// workerd runs `process.nextTick` through `queueMicrotask`, which keeps each callback it was handed, and
// so all its closure holds, until the isolate's next full collection rather than its next
// young-generation one (measured in bench/README.md, "What outlives a scavenge"). The neon driver
// schedules such callbacks on every connection checkout; what they held outlived young-generation
// collections by the kilobyte per claim, and the collections that copied it were the claims' p99.
// A settled promise's reaction runs at the same point (the same microtask queue, in turn) and is let
// go once it ran, so in workerd `process.nextTick` becomes that.

type NextTick = (callback: unknown, ...args: unknown[]) => void;

const INSTALLED = Symbol("svc.nextTickAsPromiseJob");

/**
 * Makes `owner.nextTick(callback, ...args)` run `callback(...args)` as a promise job. What the original
 * did otherwise stays its own: a callback that is not a function meets its TypeError, and one that
 * throws is thrown again through it, an uncaught exception as before (not an unhandled rejection).
 */
export function nextTickAsPromiseJob(owner: { nextTick: NextTick }): void {
  const original = owner.nextTick;
  if ((original as { [INSTALLED]?: true })[INSTALLED]) return;
  const settled = Promise.resolve();
  const nextTick: NextTick = (callback, ...args) => {
    if (typeof callback !== "function") return original.call(owner, callback, ...args);
    void settled.then(() => {
      try {
        callback(...args);
      } catch (error) {
        original.call(owner, () => {
          throw error;
        });
      }
    });
  };
  owner.nextTick = Object.assign(nextTick, { [INSTALLED]: true as const });
}

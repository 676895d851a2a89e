// How long a lease and a run's silence may last. Every comparison with these happens in the
// database, against its clock, never the engine's.

/** A claim or heartbeat holds the run this long; an engine heartbeats well within it. */
export const LEASE_SECONDS = 60;
/** A claimed run that is not heard from for this long is abandoned. */
export const SILENCE_SECONDS = 15 * 60;
/** A requested run that no engine claims within this long is abandoned. */
export const UNCLAIMED_SECONDS = 60 * 60;

// The worker project runs with `isolate: false` (vitest.config.ts): one module runner serves every file
// a vitest worker runs. @cloudflare/vitest-pool-workers 0.15.1 wraps that runner's transport once more
// at each file's start (its onModuleRunner hook), and each layer is one more round trip through its
// runner object: by a worker's fortieth file every import, the Worker's lazy imports at each request
// included, made forty. Every file keeps the first file's single layer (what the pool's successor,
// @cloudflare/vitest-plugin 1.4.5, does itself); without the pool's runner this does nothing.
type Invoke = (...args: unknown[]) => Promise<unknown>;

declare const __vitest_mocker__: { moduleRunner?: { transport?: { invoke?: Invoke } } } | undefined;

const transport = typeof __vitest_mocker__ === "object" ? __vitest_mocker__.moduleRunner?.transport : undefined;
const kept = globalThis as { svcFirstTransportInvoke?: Invoke };
if (transport?.invoke) transport.invoke = kept.svcFirstTransportInvoke ??= transport.invoke;

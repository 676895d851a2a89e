// The run fails on workerd's uncaught exceptions (test/setup/fail-on-unhandled.ts), not on its known
// noise. The sample lines are workerd's own, copied from a run of this suite.
import { describe, expect, it } from "vitest";
import { expectedRuntimeMessage, uncaughtExceptions } from "./workerd-uncaught";

const SEND_AFTER_CLOSE = [
  "uncaught exception; source = Uncaught; stack = TypeError: Can't call WebSocket send() after close().",
  "    at /work/main/node_modules/@neondatabase/serverless/index.mjs:422:89",
  "uncaught exception; exception = workerd/jsg/_virtual_includes/iterator/workerd/jsg/value.h:1480: failed: jsg.TypeError: Can't call WebSocket send() after close().",
  "stack: /work/main/node_modules/@cloudflare/workerd-linux-64/bin/workerd@35cc2b7 /work/main/node_modules/@cloudflare/workerd-linux-64/bin/workerd@2d127cf",
];

const NOISE = [
  "exception = workerd/api/web-socket.c++:821: disconnected: WebSocket peer disconnected",
  "uncaught exception; source = Uncaught (in promise); stack = Error: Network connection lost.",
  "uncaught exception; exception = workerd/jsg/_virtual_includes/iterator/workerd/jsg/value.h:1480: disconnected: jsg.Error: Network connection lost.",
  "exception = kj/async-io-unix.c++:1538: disconnected: connect(): Connection refused",
  '{"level":"error","event":"request.failed","code":"database_unavailable","method":"POST","route":"/v1/events","errorName":"Error"}',
  "\x1b[32m✓\x1b[39m test/events/ingest.test.ts \x1b[2m(\x1b[22m\x1b[2m28 tests\x1b[22m\x1b[2m)\x1b[22m",
];

describe("uncaught exceptions in workerd's output", () => {
  it("finds both lines of an uncaught exception, between other output", () => {
    expect(uncaughtExceptions([NOISE[0], ...SEND_AFTER_CLOSE, NOISE[4]].join("\n"))).toEqual([SEND_AFTER_CLOSE[0], SEND_AFTER_CLOSE[2]]);
  });

  it("finds workerd's `Uncaught` lines, coloured or not", () => {
    expect(uncaughtExceptions("\x1b[31mUncaught Error: boom\x1b[39m\n")).toEqual(["Uncaught Error: boom"]);
  });

  it("leaves known noise and ordinary output alone", () => {
    expect(uncaughtExceptions(NOISE.join("\n"))).toEqual([]);
  });
});

describe("workerd's messages that tests provoke on purpose", () => {
  const STACK =
    "stack: /work/main/node_modules/@cloudflare/workerd-linux-64/bin/workerd@2f20430 /work/main/node_modules/@cloudflare/workerd-linux-64/bin/workerd@2cdf3d0";

  it("are each left out of the output whole, with their stack of workerd's frames", () => {
    for (const message of NOISE.slice(0, 4)) {
      expect(expectedRuntimeMessage(`${message}\n`), message).toBe(true);
      expect(expectedRuntimeMessage(`${message}\n${STACK}\n`), message).toBe(true);
    }
  });

  it("are never anything else workerd or vitest prints, nor a message with more than its stack", () => {
    expect(SEND_AFTER_CLOSE.some((line) => expectedRuntimeMessage(`${line}\n`))).toBe(false);
    expect(expectedRuntimeMessage(`${NOISE[4]}\n`)).toBe(false);
    expect(expectedRuntimeMessage(`${NOISE[5]}\n`)).toBe(false);
    expect(expectedRuntimeMessage(`${NOISE[1]}\n${SEND_AFTER_CLOSE[0]}\n`)).toBe(false);
  });
});

// Request bodies for the size and encoding limits.

/** `total` bytes of spaces streamed in 64 KiB chunks with no declared length (sent chunked). */
export function streamedBody(total: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= total) return controller.close();
      controller.enqueue(new Uint8Array(64 * 1024).fill(32));
      sent += 64 * 1024;
    },
  });
}

/** Bytes that are not UTF-8 (a lone continuation byte inside otherwise valid JSON). */
export const NOT_UTF8 = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0x80, 0x22, 0x7d]);

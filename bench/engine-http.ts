// How the benchmarks' engines talk to the service: node:http on kept-alive connections, as lean as the
// floor's own `pg` client (fetch's client costs this machine's shared cores more per request than some
// of the Worker's work measured, which would count against the service alone).
import { Agent, request } from "node:http";

const agent = new Agent({ keepAlive: true, maxSockets: 8 });

/** POSTs `body` (JSON) with the engine token; the answer's status and text. */
export function post(url: string, token: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(
      url,
      { method: "POST", agent, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => chunks.push(chunk));
        answer.on("end", () => resolve({ status: answer.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        answer.on("error", reject);
      },
    );
    sent.on("error", reject);
    sent.end(body);
  });
}

// A fake of the mail provider (SVC_MAIL_BASE_URL): `POST /emails` as Resend-style APIs take it,
// recording each message; tests read them back from `GET /_fake/emails?to=<address>`. A body that is
// not JSON or not a message's shape answers 400, as the provider would, and the fake stays up.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

interface Recorded {
  authorization: string | undefined;
  from: string;
  to: string[];
  subject: string;
  text: string;
}

function parseMessage(text: string): Omit<Recorded, "authorization"> | null {
  let body: Partial<Record<keyof Recorded, unknown>>;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return null;
  }
  const { from, to, subject, text: content } = body ?? {};
  const strings = [from, subject, content].every((field) => typeof field === "string");
  if (!strings || !Array.isArray(to) || !to.every((address) => typeof address === "string")) return null;
  return { from: from as string, to: to as string[], subject: subject as string, text: content as string };
}

export async function startFakeMail(): Promise<{ url: string; close: () => Promise<void> }> {
  const sent: Recorded[] = [];
  const server = createServer((req, res) => {
    // A client that goes away mid-body fails the read: end that exchange, not the fake.
    handle(req, res).catch(() => res.destroy());
  });
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const reply = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (req.method === "POST" && url.pathname === "/emails") {
      const body = parseMessage(Buffer.concat(chunks).toString());
      if (!body) return reply(400, { message: "The body must be JSON with from, subject and text strings and to, an array of strings." });
      sent.push({ authorization: req.headers.authorization, ...body });
      return reply(200, { id: `email_${sent.length}` });
    }
    if (req.method === "GET" && url.pathname === "/_fake/emails") {
      const to = url.searchParams.get("to");
      return reply(
        200,
        sent.filter((mail) => !to || mail.to.includes(to)),
      );
    }
    reply(404, { message: "not found" });
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

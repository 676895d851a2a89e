// A fake of the mail provider (SVC_MAIL_BASE_URL): `POST /emails` as Resend-style APIs take it,
// recording each message; tests read them back from `GET /_fake/emails?to=<address>`.
import { createServer } from "node:http";

interface Recorded {
  authorization: string | undefined;
  from: string;
  to: string[];
  subject: string;
  text: string;
}

export async function startFakeMail(): Promise<{ url: string; close: () => Promise<void> }> {
  const sent: Recorded[] = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const reply = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (req.method === "POST" && url.pathname === "/emails") {
      const body = JSON.parse(Buffer.concat(chunks).toString() || "{}") as Omit<Recorded, "authorization">;
      sent.push({ authorization: req.headers.authorization, from: body.from, to: body.to, subject: body.subject, text: body.text });
      return reply(200, { id: `email_${sent.length}` });
    }
    if (req.method === "GET" && url.pathname === "/_fake/emails") {
      const to = url.searchParams.get("to");
      return reply(200, sent.filter((mail) => !to || mail.to.includes(to)));
    }
    reply(404, { message: "not found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

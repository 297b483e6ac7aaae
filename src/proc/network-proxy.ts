/**
 * A sandbox's network as an allow-list: the sandbox has no network of its own, and its HTTP_PROXY leads (through
 * net-bridge.mjs inside) to this proxy on a Unix socket in the run's scratch folder. CONNECT and plain HTTP requests
 * go out only to an allowed host; anything else is answered 403, saying why. Programs that ignore the proxy
 * variables reach nothing at all.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import net from "node:net";

/** `host` (any port), `host:port`, or `*.domain` (its subdomains, any port). */
export function hostAllowed(allow: readonly string[], host: string, port: number): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, "");
  return allow.some((entry) => {
    const [pattern, wanted] = splitHostPort(entry.toLowerCase());
    if (wanted !== undefined && wanted !== port) return false;
    return pattern.startsWith("*.") ? name.endsWith(pattern.slice(1)) : name === pattern;
  });
}

function splitHostPort(entry: string): [string, number | undefined] {
  const match = /^(.*):(\d+)$/.exec(entry);
  return match ? [match[1]!, Number(match[2])] : [entry, undefined];
}

function refusal(host: string, port: number): string {
  return `runbound: ${host}:${port} is not on this run's allow-list (createRun sandbox.network); the harness adds hosts there\n`;
}

/** Listens on `socket` at once (a connection can only come after a confined process started behind it). */
export function startAllowListProxy(socket: string, allow: readonly string[]): Server {
  const server = createServer((req, res) => forwardPlain(allow, req, res));
  server.on("connect", (req: IncomingMessage, client: net.Socket, head: Buffer) => {
    const [host, port] = splitHostPort(req.url ?? "");
    const target = port ?? 443;
    if (!hostAllowed(allow, host, target)) {
      client.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n\r\n${refusal(host, target)}`);
      return;
    }
    const upstream = net.connect(target, host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on("error", () => client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n"));
    client.on("error", () => upstream.destroy());
  });
  server.on("error", () => undefined);
  server.listen(socket);
  return server;
}

function forwardPlain(
  allow: readonly string[],
  req: IncomingMessage,
  res: import("node:http").ServerResponse,
): void {
  let url: URL;
  try {
    url = new URL(req.url ?? "");
  } catch {
    res
      .writeHead(400, { "Content-Type": "text/plain" })
      .end("runbound: a proxy request needs an absolute URL\n");
    return;
  }
  const port = Number(url.port || 80);
  if (url.protocol !== "http:" || !hostAllowed(allow, url.hostname, port)) {
    res.writeHead(403, { "Content-Type": "text/plain" }).end(refusal(url.hostname, port));
    return;
  }
  const upstream = httpRequest(
    {
      host: url.hostname,
      port,
      path: `${url.pathname}${url.search}`,
      method: req.method,
      headers: req.headers,
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on("error", () => res.writeHead(502).end());
  req.pipe(upstream);
}

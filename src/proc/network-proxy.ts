/**
 * A confined run's way out: its network namespace has only its own loopback, and its HTTP_PROXY leads (through
 * net-bridge.mjs there) to this proxy on a Unix socket in the run's scratch folder. CONNECT and plain HTTP requests
 * go out only to an allowed host (`*`: any, the network "on"); anything else is answered 403, saying why. Programs
 * that ignore the proxy variables reach nothing at all. A name is connected to at the address it resolves to once,
 * here, and only if that is a public address — a name whose record points at loopback or a private network (DNS is the world's to
 * answer) would reach the host's own services and the neighbour runs' listeners; an address listed as such is
 * allowed.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import net from "node:net";

/** `host` (any port), `host:port`, `*.domain` (its subdomains, any port), or `*` (any host, any port). */
export function hostAllowed(allow: readonly string[], host: string, port: number): boolean {
  const name = bare(host);
  return allow.some((entry) => {
    if (entry === "*") return true;
    const [pattern, wanted] = splitHostPort(entry.toLowerCase());
    if (wanted !== undefined && wanted !== port) return false;
    return pattern.startsWith("*.") ? name.endsWith(pattern.slice(1)) : name === pattern;
  });
}

/** Whether an internal address is listed as itself (not through `*` or a domain pattern). */
function listedAsItself(allow: readonly string[], address: string, port: number): boolean {
  const name = bare(address);
  return allow.some((entry) => {
    const [pattern, wanted] = splitHostPort(entry.toLowerCase());
    return bare(pattern) === name && (wanted === undefined || wanted === port);
  });
}

function bare(host: string): string {
  return host.toLowerCase().replace(/^\[|\]$/g, "");
}

/**
 * Why a connection to a literal address is refused (an internal one not listed as itself), or undefined. Node
 * connects to a literal address without a lookup, so `checkedLookup` never sees it.
 */
function literalRefused(allow: readonly string[], host: string, port: number): string | undefined {
  const address = bare(host);
  if (!net.isIP(address) || !isInternalAddress(address) || listedAsItself(allow, address, port))
    return undefined;
  return `runbound: ${address} is a loopback or private address, which this run reaches only if the harness lists it itself (createRun sandbox.network)\n`;
}

/** Loopback, private, link-local, shared (CGNAT), unspecified or multicast: not "the outside". */
export function isInternalAddress(address: string): boolean {
  const v4 = /^(?:::ffff:)?(\d+)\.(\d+)\.(\d+)\.(\d+)$/i.exec(address);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      a >= 224
    );
  }
  const v6 = address.toLowerCase();
  return v6 === "::" || v6 === "::1" || /^f[cd]/.test(v6) || /^fe[89ab]/.test(v6) || /^ff/.test(v6);
}

/**
 * A `lookup` for the connection to `host`: the address it resolves to, refused when internal and not itself listed
 * (an address in the allow-list is allowed as written). One resolution, used for the connection: no second answer
 * can differ from the one checked.
 */
function checkedLookup(allow: readonly string[], port: number): net.LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, found: LookupAddress[]) => {
      if (error) return callback(error, "", 0);
      const usable = found.filter(
        (entry) => !isInternalAddress(entry.address) || listedAsItself(allow, entry.address, port),
      );
      if (usable.length === 0) {
        const refused = new Error(
          `${hostname} resolves to ${found.map((e) => e.address).join(", ")}, a loopback or private address, which this run reaches only if the harness lists the address itself (createRun sandbox.network)`,
        );
        return callback(Object.assign(refused, { code: "EINTERNAL" }), "", 0);
      }
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
      callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}

function splitHostPort(entry: string): [string, number | undefined] {
  const match = /^(.*):(\d+)$/.exec(entry);
  return match ? [match[1]!, Number(match[2])] : [entry, undefined];
}

function refusal(host: string, port: number): string {
  return `runbound: ${host}:${port} is not on this run's allow-list (createRun sandbox.network); the harness adds hosts there\n`;
}

/** Connections through a run's proxy at once (each a descriptor, two for a tunnel). */
export const MAX_CONNECTIONS = 256;

/** Listens on `socket` at once (a connection can only come after a confined process started behind it). */
export function startAllowListProxy(socket: string, allow: readonly string[]): Server {
  const server = createServer((req, res) => forwardPlain(allow, req, res));
  server.on("connect", (req: IncomingMessage, client: net.Socket, head: Buffer) => {
    const [host, port] = splitHostPort(req.url ?? "");
    const target = port ?? 443;
    const refused = hostAllowed(allow, host, target)
      ? literalRefused(allow, host, target)
      : refusal(host, target);
    if (refused) {
      client.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n\r\n${refused}`);
      return;
    }
    const upstream = net.connect({ port: target, host, lookup: checkedLookup(allow, target) }, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on("error", (error: NodeJS.ErrnoException) =>
      client.end(
        error.code === "EINTERNAL"
          ? `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n\r\nrunbound: ${error.message}\n`
          : "HTTP/1.1 502 Bad Gateway\r\n\r\n",
      ),
    );
    client.on("error", () => upstream.destroy());
  });
  server.on("error", () => undefined);
  // Every sandbox of the run reaches the network through here, in the host's process: a cell opening connections
  // without end would take the host's descriptors; past this many at once a new one is closed.
  server.maxConnections = MAX_CONNECTIONS;
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
  const refused =
    url.protocol !== "http:" || !hostAllowed(allow, url.hostname, port)
      ? refusal(url.hostname, port)
      : literalRefused(allow, url.hostname, port);
  if (refused) {
    res.writeHead(403, { "Content-Type": "text/plain" }).end(refused);
    return;
  }
  const upstream = httpRequest(
    {
      host: url.hostname,
      port,
      path: `${url.pathname}${url.search}`,
      method: req.method,
      headers: req.headers,
      lookup: checkedLookup(allow, port),
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EINTERNAL")
      res.writeHead(403, { "Content-Type": "text/plain" }).end(`runbound: ${error.message}\n`);
    else res.writeHead(502).end();
  });
  req.pipe(upstream);
}

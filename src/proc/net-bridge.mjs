// @ts-check
// In a run's network namespace (a loopback nobody else shares): listens on that loopback where HTTP_PROXY points and
// carries each connection to runbound's proxy on a Unix socket outside ("-": the network is off, no proxy); listens
// on a relay socket through which runbound, on the host, reaches a port of this loopback (a debug server a cell
// started); and so holds the namespace until it is ended.
// Usage: node net-bridge.mjs PROXY_SOCKET|- PROXY_PORT RELAY_SOCKET
// Relay: the host writes "?PORT\n" (is anything listening? answered "+INODE\n" or "-\n", then closed) or "PORT\n"
// (answered "+\n", then the connection is the port's; or "-WHY\n").
import { readFileSync } from "node:fs";
import net from "node:net";

const [proxySocket, proxyPort, relaySocket] = process.argv.slice(2);
if (!proxySocket || !proxyPort || !relaySocket) {
  console.error("usage: net-bridge.mjs PROXY_SOCKET|- PROXY_PORT RELAY_SOCKET");
  process.exit(2);
}

const proxy = net.createServer((client) => {
  const upstream = net.connect(proxySocket);
  client.pipe(upstream).pipe(client);
  client.on("error", () => upstream.destroy());
  upstream.on("error", () => client.destroy());
});

/**
 * The socket inode listening on `port` in this network namespace, from its own /proc tables.
 * @param {number} port
 */
function listening(port) {
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[1]?.endsWith(hexPort) && fields[3] === "0A" && fields[9]) return fields[9];
    }
  }
  return undefined;
}

const relay = net.createServer((host) => {
  host.on("error", () => host.destroy());
  let asked = "";
  const onData = (/** @type {Buffer} */ chunk) => {
    asked += chunk.toString("latin1");
    const end = asked.indexOf("\n");
    if (end < 0) {
      if (asked.length > 16) host.destroy();
      return;
    }
    host.off("data", onData);
    host.pause();
    const line = asked.slice(0, end);
    const rest = Buffer.from(asked.slice(end + 1), "latin1");
    const probe = line.startsWith("?");
    const port = Number(probe ? line.slice(1) : line);
    if (!Number.isInteger(port) || port < 1 || port > 65535) return void host.end("-not a port\n");
    if (probe) {
      const inode = listening(port);
      return void host.end(inode ? `+${inode}\n` : "-\n");
    }
    const target = net.connect(port, "127.0.0.1", () => {
      host.write("+\n");
      if (rest.length) target.write(rest);
      host.pipe(target).pipe(host);
      host.resume();
    });
    target.on("error", (error) => host.end(`-${error.message}\n`));
    host.on("close", () => target.destroy());
  };
  host.on("data", onData);
});

const servers = proxySocket === "-" ? [relay] : [proxy, relay];
for (const server of servers)
  server.on("error", (error) => {
    console.error(`net-bridge: ${error.message}`);
    process.exit(126);
  });
for (const signal of /** @type {NodeJS.Signals[]} */ (["SIGTERM", "SIGINT", "SIGHUP"]))
  process.on(signal, () => process.exit(0));
// The relay last: the host's sandboxes wait for its socket, and then the proxy is listening too.
if (proxySocket === "-") relay.listen(relaySocket);
else proxy.listen(Number(proxyPort), "127.0.0.1", () => relay.listen(relaySocket));

// @ts-check
// Inside a sandbox whose network is an allow-list: listens on the sandbox's own loopback where HTTP_PROXY points,
// carries each connection to runbound's proxy on a Unix socket outside, and runs the command under it.
// Usage: node net-bridge.mjs SOCKET PORT -- COMMAND [ARGS...]
import { spawn } from "node:child_process";
import net from "node:net";

const [socket, port, separator, command, ...args] = process.argv.slice(2);
if (!socket || !port || separator !== "--" || !command) {
  console.error("usage: net-bridge.mjs SOCKET PORT -- COMMAND [ARGS...]");
  process.exit(2);
}

const server = net.createServer((client) => {
  const upstream = net.connect(socket);
  client.pipe(upstream).pipe(client);
  client.on("error", () => upstream.destroy());
  upstream.on("error", () => client.destroy());
});

server.listen(Number(port), "127.0.0.1", () => {
  const child = spawn(command, args, { stdio: "inherit" });
  const forward = (/** @type {NodeJS.Signals} */ signal) => child.kill(signal);
  for (const signal of /** @type {NodeJS.Signals[]} */ (["SIGTERM", "SIGINT", "SIGHUP"]))
    process.on(signal, forward);
  child.on("error", (error) => {
    console.error(`${command}: ${error.message}`);
    process.exit(127);
  });
  child.on("exit", (code, signal) => {
    server.close();
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
});
server.on("error", (error) => {
  console.error(`net-bridge: ${error.message}`);
  process.exit(126);
});

/**
 * A port of a confined run's own loopback, reached from the host: the run's network namespace has a loopback nobody
 * else shares, so a debug server a cell started there is reached only through the relay socket of the run's
 * net-bridge.mjs ("?PORT" asks who listens, "PORT" connects). The host side is a loopback endpoint of its own for
 * each such port, for a client that only speaks TCP (lldb's gdb-remote).
 */
import net from "node:net";
import { expectSocketFile } from "./socket-file.js";

/** How long a relay may take to answer: it only reads /proc or connects on its own loopback. */
const RELAY_MS = 3000;

/** The socket inode listening on `port` behind `relay`, or undefined (nothing there, or the relay is gone). */
export async function listenerBehind(relay: string, port: number): Promise<string | undefined> {
  try {
    const { head, socket } = await ask(relay, `?${port}\n`);
    socket.destroy();
    return /^\+(\d+)$/.exec(head)?.[1];
  } catch {
    return undefined;
  }
}

/** A connection to `port` on the sandbox's loopback behind `relay`. */
export async function connectBehind(relay: string, port: number): Promise<net.Socket> {
  const { head, socket } = await ask(relay, `${port}\n`);
  if (head !== "+") {
    socket.destroy();
    throw new Error(`the sandbox's port ${port} refused the connection (${head.slice(1) || "closed"})`);
  }
  return socket;
}

export interface LoopbackEndpoint {
  /** The host loopback port that leads to the sandbox's port. */
  readonly port: number;
  close(): void;
}

/**
 * A host loopback port whose every connection is carried to `port` behind `relay`. Only the host's own processes
 * reach it: every confined one has a loopback of its own.
 */
export async function endpointFor(relay: string, port: number): Promise<LoopbackEndpoint> {
  const server = net.createServer((client) => {
    client.pause();
    client.on("error", () => undefined);
    connectBehind(relay, port).then(
      (upstream) => {
        upstream.on("error", () => client.destroy());
        client.on("close", () => upstream.destroy());
        upstream.pipe(client).pipe(upstream);
        client.resume();
      },
      () => client.destroy(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  server.unref();
  const address = server.address() as net.AddressInfo;
  return { port: address.port, close: () => server.close() };
}

/** Writes `line` to the relay and reads its one-line answer; the socket goes on as the connection. */
function ask(relay: string, line: string): Promise<{ head: string; socket: net.Socket }> {
  expectSocketFile(relay);
  return new Promise((resolve, reject) => {
    const socket = net.connect(relay);
    let seen = Buffer.alloc(0);
    const timer = setTimeout(() => fail(new Error(`the relay ${relay} did not answer`)), RELAY_MS);
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      seen = Buffer.concat([seen, chunk]);
      const end = seen.indexOf(10);
      if (end < 0) {
        if (seen.length > 512) fail(new Error(`the relay ${relay} answered no line`));
        return;
      }
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("error", fail);
      socket.off("end", ended);
      socket.pause();
      const rest = seen.subarray(end + 1);
      if (rest.length) socket.unshift(rest);
      resolve({ head: seen.subarray(0, end).toString("utf8"), socket });
    };
    socket.on("data", onData);
    socket.on("error", fail);
    socket.once("connect", () => socket.write(line));
    const ended = () => fail(new Error(`the relay ${relay} closed without an answer`));
    socket.once("end", ended);
  });
}

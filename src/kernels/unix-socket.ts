/**
 * Reaching a Jupyter server that listens on a Unix socket: a confined server without a network has no loopback the
 * host can reach, but its socket is a file in a folder both sides see. The kernel library takes its fetch and its
 * WebSocket from the settings, so these two carry its requests over the socket.
 */
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import WebSocket from "ws";
import { expectSocketFile } from "../proc/socket-file.js";

/** A fetch whose every request goes to the server on `socket` (the URL's host is only a name). */
export function unixFetch(socket: string): typeof globalThis.fetch {
  return async (input, init) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const url = new URL(request.url);
    const body =
      request.method === "GET" || request.method === "HEAD"
        ? undefined
        : Buffer.from(await request.arrayBuffer());
    expectSocketFile(socket);
    return new Promise<Response>((resolve, reject) => {
      const req = httpRequest(
        {
          socketPath: socket,
          path: `${url.pathname}${url.search}`,
          method: request.method,
          headers: { ...Object.fromEntries(request.headers), host: url.host },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("error", reject);
          res.on("end", () => {
            const status = res.statusCode ?? 500;
            const headers = new Headers();
            for (const [name, value] of Object.entries(res.headers))
              if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
            const empty = status === 204 || status === 304 || request.method === "HEAD";
            resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers }));
          });
        },
      );
      req.on("error", reject);
      request.signal?.addEventListener("abort", () => req.destroy(new Error("aborted")), { once: true });
      req.end(body);
    });
  };
}

/** A WebSocket class whose connections go to the server on `socket`. */
export function unixWebSocket(socket: string): typeof globalThis.WebSocket {
  class UnixSocketWebSocket extends WebSocket {
    constructor(address: string | URL, protocols?: string | string[]) {
      const url = new URL(address);
      expectSocketFile(socket);
      super(`ws+unix:${socket}:${url.pathname}${url.search}`, protocols);
    }
  }
  return UnixSocketWebSocket as unknown as typeof globalThis.WebSocket;
}

/** Whether something accepts connections on `socket` yet. */
export function socketAccepts(socket: string): Promise<boolean> {
  try {
    expectSocketFile(socket);
  } catch {
    return Promise.resolve(false);
  }
  return new Promise((resolve) => {
    const probe = connect(socket);
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", () => resolve(false));
  });
}

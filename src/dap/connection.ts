/**
 * The connection to a debug adapter: a process runbound starts, spoken to over its stdio — or over TCP where it says
 * where it listens (delve: "DAP server listening at: HOST:PORT"; its stdout then carries the program's output) —
 * or a program's own debug server on a port (debugpy --listen, dlv --headless).
 */
import { randomUUID } from "node:crypto";
import net from "node:net";
import path from "node:path";
import type { DebugProtocol } from "@vscode/debugprotocol";
import { TerminalText } from "../files/terminal-text.js";
import { withoutTerminalEscapes } from "../files/visible.js";
import { goBuildCache } from "../proc/build-cache.js";
import { expectSocketFile } from "../proc/socket-file.js";
import { exitedAndDrained, type ProcessTracker, type TrackedProcess } from "../proc/tracker.js";
import type { AdapterSpec, ResolvedAdapter } from "./adapters.js";
import { DapClient, RUNBOUND_NOTE } from "./client.js";

/** delve's own lines, which it writes to its stdout and sends as stdout output events among the program's. */
export const DELVE_OWN_LINES = /^(Building .*|Type 'dlv help' for list of commands\.)\r?\n/gm;

export interface AdapterConnection {
  readonly client: DapClient;
  /** The adapter process runbound started; undefined when connected to a program's own debug server. */
  readonly process?: TrackedProcess;
}

export interface ConnectionEvents {
  /** Program output the adapter wrote to its own stdout (delve, after its address line). */
  output(text: string): void;
  /** The connection ended: the program's debug server closed it, or the adapter exited (`why` says how). */
  ended(why: { kind: "closed" } | { kind: "adapter exited"; how: string }): void;
}

export async function connectAdapter(
  spec: AdapterSpec,
  adapter: ResolvedAdapter,
  remote: { host: string; port: number } | undefined,
  options: { cwd: string; workdir: string; processes: ProcessTracker; launchMs: number },
  events: ConnectionEvents,
): Promise<AdapterConnection> {
  if (remote) {
    const socket = await connectTo(remote);
    const client = new DapClient(socket, socket);
    socket.once("close", () => {
      client.close("the program's debug server closed the connection");
      events.ended({ kind: "closed" });
    });
    return { client };
  }
  // An adapter in a place with a loopback of its own cannot be reached on it: delve listens on a socket file instead.
  const scratch = options.processes.confinedPlace.hostLoopback
    ? undefined
    : options.processes.confinedPlace.scratch;
  const args =
    adapter.transport === "tcp" && scratch
      ? adapter.args.map((arg) =>
          arg.startsWith("--listen=")
            ? `--listen=unix:${path.join(scratch, `dap-${randomUUID().slice(0, 8)}.sock`)}`
            : arg,
        )
      : adapter.args;
  const cache =
    !adapter.onHost && adapter.buildCache && options.processes.confinedPlace.kind === "confined"
      ? goBuildCache(options.workdir)
      : undefined;
  const proc = options.processes.spawn(`${spec.id} debug adapter`, adapter.command, args, {
    cwd: options.cwd,
    stdio: ["pipe", "pipe", "pipe"],
    confined: !adapter.onHost,
    ...(cache ? { env: cache.env, writable: [cache.dir] } : {}),
    ...(adapter.readable ? { readable: adapter.readable } : {}),
  });
  let stderr = "";
  proc.child.stderr?.on("data", (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  let client: DapClient;
  // An adapter in a container sees other paths: its messages are mapped at this boundary, once.
  const place = options.processes.confinedPlace;
  const paths = !adapter.onHost && place.kind === "container" ? place : undefined;
  if (adapter.transport === "stdio") client = new DapClient(proc.child.stdout!, proc.child.stdin!, paths);
  else {
    const address = await listeningAddress(proc, adapter, options.launchMs, () => stderr, events);
    // A socket file named as the adapter's place sees it.
    const socket = await connectTo("path" in address ? { path: place.toHost(address.path) } : address);
    client = new DapClient(socket, socket, paths);
  }
  // Only once its pipes are read to the end: a "terminated" written just before a normal exit is seen first.
  exitedAndDrained(proc).then(({ code, signal }) => {
    const how = `${signal ?? `code ${code}`}${stderr ? `: ${stderr.trim().split("\n").slice(-2).join(" | ")}` : ""}`;
    client.close(`the ${spec.name} adapter exited (${how})`);
    events.ended({ kind: "adapter exited", how });
  });
  return { client, process: proc };
}

/** delve's "listening at: HOST:PORT" line; afterwards its stdout is the program's output, less delve's own lines. */
function listeningAddress(
  proc: TrackedProcess,
  adapter: ResolvedAdapter,
  launchMs: number,
  stderr: () => string,
  events: ConnectionEvents,
): Promise<{ host: string; port: number } | { path: string }> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(
      () =>
        reject(
          new Error(
            `${adapter.command} did not say where it listens within ${launchMs} ms: ${seen || stderr()}`,
          ),
        ),
      launchMs,
    );
    const onData = (d: Buffer) => {
      seen += d.toString();
      const m = /listening at:\s*(?:([\d.]+):(\d+)|(\/\S+))/.exec(seen);
      if (!m) return;
      clearTimeout(timer);
      proc.child.stdout?.off("data", onData);
      proc.child.stdout?.on("data", (more: Buffer) =>
        events.output(more.toString().replace(DELVE_OWN_LINES, "")),
      );
      resolve(m[3] ? { path: m[3] } : { host: m[1]!, port: Number(m[2]) });
    };
    proc.child.stdout?.on("data", onData);
    proc.exited.then(() => reject(new Error(`${adapter.command} exited before listening: ${stderr()}`)));
  });
}

/** A DAP connection over TCP; setNoDelay because each step is a small round trip (see ARCHITECTURE.md). */
async function connectTo(address: { host: string; port: number } | { path: string }): Promise<net.Socket> {
  if ("path" in address) expectSocketFile(address.path);
  const socket = net.createConnection(address);
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  return socket;
}

/**
 * The program's output as the session keeps it: as a terminal shows it (a progress bar's redraws are its last
 * state), the last `limit` characters, and how many were dropped before.
 */
export class OutputRing {
  readonly #text: TerminalText;

  constructor(readonly limit: number) {
    this.#text = new TerminalText(limit);
  }

  append(text: string): void {
    this.#text.write(text);
  }

  contents(): { text: string; dropped: number } {
    return { text: this.#text.text, dropped: this.#text.dropped };
  }

  /** The last `count` lines, trimmed; "" when nothing was printed. */
  lastLines(count: number): string {
    return this.#text.text.trim().split("\n").slice(-count).join("\n");
  }
}

/** The initialize handshake: the adapter's capabilities. */
export async function initialize(
  client: DapClient,
  adapterId: string,
  requestMs: number,
): Promise<DebugProtocol.Capabilities> {
  return (
    (await client.request<DebugProtocol.Capabilities>(
      "initialize",
      {
        clientID: "runbound",
        adapterID: adapterId,
        linesStartAt1: true,
        columnsStartAt1: true,
        pathFormat: "path",
        supportsRunInTerminalRequest: false,
      },
      requestMs,
    )) ?? {}
  );
}

/**
 * Stop where an IDE stops by default (debugpy: uncaught exceptions). Without this a Python program that raises just
 * exits with a traceback in its output, and the frame that raised is gone.
 */
export async function stopOnDefaultExceptions(
  client: DapClient,
  capabilities: DebugProtocol.Capabilities,
  requestMs: number,
): Promise<void> {
  const filters = (capabilities.exceptionBreakpointFilters ?? [])
    .filter((f) => f.default)
    .map((f) => f.filter);
  if (filters.length)
    await client.request("setExceptionBreakpoints", { filters }, requestMs).catch(() => undefined);
}

/**
 * What of an output event is the program's: its own streams only — "console" (the default) is the adapter talking
 * ("Running attachCommands", "Type 'dlv help'"), telemetry and "important" are the adapter's too — and a logpoint's
 * line, which comes as stdout (debugpy, delve) or console (lldb) and is told by the message it was set with.
 */
export function programText(
  body: DebugProtocol.OutputEvent["body"],
  adapter: string,
  logpoints: { take(output: string): string | undefined },
): string | undefined {
  const logged = logpoints.take(body.output);
  if (logged !== undefined) return `${logged}\n`;
  // What the client itself says among the program's output (a message too large to carry: client.ts).
  if (body.category === RUNBOUND_NOTE) return body.output;
  if (body.category !== "stdout" && body.category !== "stderr") return undefined;
  // delve also sends its "Building …" line as the program's stdout.
  const text = withoutTerminalEscapes(body.output);
  return adapter === "delve" ? text.replace(DELVE_OWN_LINES, "") : text;
}

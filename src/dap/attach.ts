/**
 * What `attach` joins and how: by port, the debug server that listens there (read from /proc: debugpy and delve speak
 * DAP on it, lldb-server gdb-remote through runbound's lldb adapter); by process id, the debugger for the program's
 * kind, run on the host beside it. Either way an adapter, its attach target, and the label answers use.
 */
import { realpathSync } from "node:fs";
import { ToolError } from "../errors.js";
import { endpointFor, listenerBehind } from "../proc/sandbox-loopback.js";
import type { ProcessTracker } from "../proc/tracker.js";
import { onPath, setupCommand } from "../setup/components.mjs";
import { ADAPTERS, type AdapterSpec, type AttachTarget, type ResolvedAdapter } from "./adapters.js";
import { traceable } from "./attach-pid.js";
import { classify, type DebugServer, holderOf, type Listener, whoListens } from "./listeners.js";
import { inspectorOf, isNodeInspector } from "./node/open-inspector.js";
import type { DebugSession } from "./session.js";

/** What `attach` can join, said whenever it cannot. */
const ATTACH_HOWTO =
  "attach joins a program already running under a debug server on that port: Python `python -m debugpy --listen 127.0.0.1:PORT [--wait-for-client] app.py`; Go `dlv exec ./prog --headless --listen=127.0.0.1:PORT --accept-multiclient` (or `dlv debug`); C/C++/Rust `lldb-server gdbserver 127.0.0.1:PORT ./prog`; JavaScript/TypeScript `node --inspect=127.0.0.1:PORT app.js` (or attach a running Node program by pid). To start a program yourself, use launch.";

export interface AttachPlan {
  readonly spec: AdapterSpec;
  readonly adapter: ResolvedAdapter;
  readonly target: AttachTarget;
  /** What the session is called in answers: the address, or the program and its pid. */
  readonly label: string;
  /** The session's program: the address, or the executable. */
  readonly program: string;
  /** Whether the program runs on the host, outside every sandbox of the run (a debugger there can run anything). */
  readonly outside: boolean;
  /** Ends what the attach holds on the host (the loopback endpoint into a sandbox), with the session. */
  readonly release?: () => void;
}

/**
 * A debug server on `port`: first in the run's own sandboxes (each has a loopback of its own, reached through its
 * relay; only a process of the run counts), then on the host's loopback.
 */
export async function portTarget(
  port: number,
  workdir: string,
  home: string,
  processes: ProcessTracker,
): Promise<AttachPlan> {
  const address = `127.0.0.1:${port}`;
  const inSandbox = await sandboxListener(port, processes);
  if (inSandbox) {
    const server = classify(inSandbox.listener);
    if (!server) throw new ToolError(`${heldBy(address, inSandbox.listener)}. ${ATTACH_HOWTO}`);
    const endpoint = await endpointFor(inSandbox.relay, port);
    const at = { address, host: "127.0.0.1", port: endpoint.port };
    try {
      await refuseUnlessInspector(server, at);
    } catch (error) {
      endpoint.close();
      throw error;
    }
    return { ...planFor(server, at, workdir, home), outside: false, release: endpoint.close };
  }
  const listener = whoListens(port);
  // Without /proc (not Linux) the server cannot be identified: debugpy, the one that needs nothing local.
  const server: DebugServer | undefined =
    listener === null
      ? { kind: "debugpy", listener: { pid: 0, argv: [], cwd: workdir } }
      : listener && classify(listener);
  if (!server)
    throw new ToolError(
      `${listener ? heldBy(address, listener) : `Nothing listens on ${address}`}. ${ATTACH_HOWTO}`,
    );
  const at = { address, host: "127.0.0.1", port };
  await refuseUnlessInspector(server, at);
  return { ...planFor(server, at, workdir, home), outside: true };
}

/** A Node program on the port may be a web server: only its inspector is joined. */
async function refuseUnlessInspector(
  server: DebugServer,
  at: { address: string; host: string; port: number },
): Promise<void> {
  if (server.kind !== "node" || (await isNodeInspector(at.host, at.port))) return;
  throw new ToolError(
    `${at.address} is held by \`${server.listener.argv.join(" ").slice(0, 200)}\` (pid ${server.listener.pid}), a Node program, but not its inspector (no /json/version there). ${ATTACH_HOWTO}`,
  );
}

function heldBy(address: string, listener: Listener): string {
  return `${address} is held by \`${listener.argv.join(" ").slice(0, 200)}\` (pid ${listener.pid}), which is not a debug server runbound knows`;
}

/** The listener on `port` in one of the run's sandboxes, and the relay that reaches it. */
async function sandboxListener(
  port: number,
  processes: ProcessTracker,
): Promise<{ listener: Listener; relay: string } | undefined> {
  const relays = processes.confinedPlace.relays?.() ?? [];
  const inodes = await Promise.all(relays.map((relay) => listenerBehind(relay, port)));
  for (const [i, inode] of inodes.entries()) {
    if (!inode) continue;
    const listener = holderOf(new Set([inode]), (pid) => processes.owns(pid));
    if (listener) return { listener, relay: relays[i]! };
  }
  return undefined;
}

/** How to join `server`, reached at `at` (the port itself, or the host's endpoint into a sandbox). */
function planFor(
  server: DebugServer,
  at: { address: string; host: string; port: number },
  workdir: string,
  home: string,
): Omit<AttachPlan, "outside"> {
  const held = server.listener.pid ? ` (pid ${server.listener.pid})` : "";
  if (server.kind === "node")
    return nodePlan(at, `the program's own inspector${held}`, workdir, home, false, at.address);
  if (server.kind === "lldb-server") {
    const spec = ADAPTERS.find((a) => a.id === "lldb")!;
    const resolved = spec.resolve(workdir, workdir, home, { project: false });
    if ("missing" in resolved)
      throw new ToolError(`lldb cannot attach to ${at.address}: ${resolved.missing}. Fix: ${spec.install}.`);
    return {
      spec,
      adapter: { ...resolved, onHost: true, detail: `${resolved.detail}, through lldb-server${held}` },
      target: { kind: "gdb-remote", host: at.host, port: at.port, program: server.program },
      label: at.address,
      program: at.address,
    };
  }
  const spec = ADAPTERS.find((a) => a.id === server.kind)!;
  // The program's own debug server speaks DAP: nothing runs on runbound's side.
  return {
    spec,
    adapter: {
      id: spec.id,
      command: server.listener.argv[0] ?? spec.id,
      args: [],
      transport: "tcp",
      detail: `the program's own ${server.kind === "delve" ? "dlv --headless" : "debugpy"} server${held}`,
    },
    target: { kind: server.kind, host: at.host, port: at.port },
    label: at.address,
    program: at.address,
  };
}

/** runbound's Node adapter, on the host, joining the inspector at `at` (its own, or one runbound opened). */
function nodePlan(
  at: { address: string; host: string; port: number },
  detail: string,
  workdir: string,
  home: string,
  closeInspector: boolean,
  label: string,
): Omit<AttachPlan, "outside"> {
  const spec = ADAPTERS.find((a) => a.id === "node")!;
  const resolved = spec.resolve(workdir, workdir, home, { project: false }) as ResolvedAdapter;
  return {
    spec,
    // It only speaks to the inspector: the program's code runs where the program runs.
    adapter: {
      ...resolved,
      onHost: true,
      detail: `runbound's adapter on Node ${process.version} at ${process.execPath}, joined to ${detail}`,
    },
    target: { kind: "node", host: at.host, port: at.port, closeInspector },
    label,
    program: label,
  };
}

export async function pidTarget(pid: number, workdir: string, home: string): Promise<AttachPlan> {
  const traced = traceable(pid, realpathSync(workdir));
  const label = `\`${traced.argv.join(" ").slice(0, 120)}\` (pid ${pid})`;
  if (traced.adapter === "node") return nodePidTarget(pid, label, workdir, home);
  const spec = ADAPTERS.find((a) => a.id === traced.adapter)!;
  const resolved = spec.resolve(traced.cwd, workdir, home, { project: false });
  if ("missing" in resolved)
    throw new ToolError(`${spec.name} cannot attach to ${label}: ${resolved.missing}. Fix: ${spec.install}.`);
  if (spec.id === "debugpy" && !onPath("gdb"))
    throw new ToolError(
      `debugpy attaches to a running Python through gdb, which is not installed here. Fix: ${setupCommand("gdb")} (apt-get as root), or start the program under debugpy (\`python -m debugpy --listen 127.0.0.1:PORT app.py\`) and attach by port.`,
    );
  return {
    spec,
    // A confined debugger could not see the process: it runs on the host, as the program does.
    adapter: { ...resolved, onHost: true, detail: `${resolved.detail}, attached to pid ${pid}` },
    target: { kind: "pid", adapter: traced.adapter, pid },
    label,
    program: traced.exe,
    outside: true,
  };
}

/** A Node program by pid: its inspector, opened with SIGUSR1 when it was not (and closed again when runbound leaves). */
async function nodePidTarget(pid: number, label: string, workdir: string, home: string): Promise<AttachPlan> {
  const found = await inspectorOf(pid);
  if (!found) {
    const holder = whoListens(9229);
    throw new ToolError(
      `${label} opened no inspector within 5 s of SIGUSR1${holder ? `: 127.0.0.1:9229, where Node opens it, is held by \`${holder.argv.join(" ").slice(0, 120)}\` (pid ${holder.pid})` : ""}. Start the program with \`node --inspect=127.0.0.1:PORT app.js\` and attach by port, or launch it.`,
    );
  }
  const address = `127.0.0.1:${found.port}`;
  const how = found.opened
    ? `its inspector, opened by runbound at ${address}`
    : `its inspector at ${address}`;
  return {
    ...nodePlan({ address, host: "127.0.0.1", port: found.port }, how, workdir, home, found.opened, label),
    program: label,
    outside: true,
  };
}

/** debugpy's injection through gdb failed: said at once and whole (debugpy itself then waits out the launch). */
export class InjectionFailed extends ToolError {}

export async function failFastOnInjection<T>(
  session: DebugSession,
  what: string,
  attached: Promise<T>,
): Promise<T> {
  if (session.spec.id !== "debugpy") return attached;
  let timer: NodeJS.Timeout | undefined;
  const failed = new Promise<never>((_, reject) => {
    timer = setInterval(() => {
      const printed = session.lastLines(60);
      if (!/CalledProcessError: Command 'gdb/.test(printed)) return;
      const why = /Couldn't write[^\n]*|ptrace[^\n]*|Operation not permitted[^\n]*/.exec(printed)?.[0];
      reject(
        new InjectionFailed(
          `debugpy could not inject itself into ${what} through gdb${why ? ` (gdb: "${why.trim()}")` : ""}: this system does not let gdb call into a running process (a sandboxed kernel such as gVisor, or a container without full ptrace). Start the program under debugpy instead (\`python -m debugpy --listen 127.0.0.1:PORT app.py\`) and attach by port.`,
        ),
      );
    }, 200);
  });
  return Promise.race([attached, failed]).finally(() => clearInterval(timer));
}

/**
 * What listens on a loopback port, and so which debug server `attach` is talking to: debugpy (a program started
 * with `python -m debugpy --listen`), delve (`dlv … --headless --listen`), lldb-server (`lldb-server gdbserver`) or
 * Node (its inspector: `node --inspect`; a Node program may as well be listening as a web server, which attach.ts
 * tells apart by asking).
 * Read from Linux /proc (the listening socket's inode, the process holding it, its command line); the protocol
 * differs per server (DAP to debugpy and delve directly; gdb-remote through runbound's lldb adapter for
 * lldb-server), so guessing is not an option.
 */
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";
import { isNodeExecutable } from "./attach-pid.js";

export interface Listener {
  readonly pid: number;
  readonly argv: readonly string[];
  readonly cwd: string;
}

export type DebugServer =
  | { readonly kind: "debugpy"; readonly listener: Listener }
  | { readonly kind: "delve"; readonly listener: Listener }
  | { readonly kind: "node"; readonly listener: Listener }
  | { readonly kind: "lldb-server"; readonly listener: Listener; readonly program: string | undefined };

/** undefined: nothing listens there; null: this system has no /proc to ask. */
export function whoListens(port: number): Listener | undefined | null {
  const tables = ["/proc/net/tcp", "/proc/net/tcp6"].filter((f) => existsSync(f));
  if (tables.length === 0) return null;
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  const inodes = new Set<string>();
  for (const table of tables) {
    for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address, rem_address, st (0A = LISTEN), …, inode (the 10th field)
      if (fields[1]?.endsWith(hexPort) && fields[3] === "0A" && fields[9]) inodes.add(fields[9]);
    }
  }
  if (inodes.size === 0) return undefined;
  return holderOf(inodes);
}

/**
 * The process holding one of these socket inodes (inodes are the host's, whichever network namespace the socket
 * is in), and only one that `accept` takes when given (a process of the run's own).
 */
export function holderOf(
  inodes: ReadonlySet<string>,
  accept?: (pid: number) => boolean,
): Listener | undefined {
  const wanted = new Set([...inodes].map((inode) => `socket:[${inode}]`));
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${entry}/fd/${fd}`);
      } catch {
        continue;
      }
      if (!wanted.has(target)) continue;
      if (accept && !accept(Number(entry))) return undefined;
      try {
        const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").filter(Boolean);
        return { pid: Number(entry), argv, cwd: readlinkSync(`/proc/${entry}/cwd`) };
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** Which debug server a listener is, or undefined when it is none runbound knows. */
export function classify(listener: Listener): DebugServer | undefined {
  const [command = "", ...args] = listener.argv;
  const name = path.basename(command);
  if (listener.argv.some((a) => a === "debugpy" || /[\\/]debugpy([\\/]|$)/.test(a)))
    return { kind: "debugpy", listener };
  if (/^dlv/.test(name) && args.some((a) => a === "--headless" || a.startsWith("--headless=")))
    return { kind: "delve", listener };
  if (/^lldb-server/.test(name) && /^(gdbserver|g)$/.test(args[0] ?? ""))
    return { kind: "lldb-server", listener, program: gdbserverProgram(listener, args.slice(1)) };
  if (isNodeExecutable(command) || isNodeExecutable(executableOf(listener.pid)))
    return { kind: "node", listener };
  return undefined;
}

function executableOf(pid: number): string {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return "";
  }
}

/** `lldb-server gdbserver [options] HOST:PORT [--attach PID | program args…]` → the program's absolute path. */
function gdbserverProgram(listener: Listener, args: readonly string[]): string | undefined {
  const attach = args.indexOf("--attach");
  if (attach >= 0) {
    try {
      return readlinkSync(`/proc/${args[attach + 1]}/exe`);
    } catch {
      return undefined;
    }
  }
  const address = args.findIndex((a) => /:\d+$/.test(a) && !a.startsWith("-"));
  if (address < 0) return undefined;
  const program = args[address + 1] === "--" ? args[address + 2] : args[address + 1];
  return program ? path.resolve(listener.cwd, program) : undefined;
}

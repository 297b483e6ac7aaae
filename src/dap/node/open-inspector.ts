/**
 * Node's inspector as `attach` finds it: whether a port is one (a Node program may be listening as a web server),
 * and, by process id, the port a running program's inspector listens on — opened with SIGUSR1 when it was not, as
 * VS Code's "Attach to Node Process" does. Read from Linux /proc; asked over the inspector's HTTP list.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import http from "node:http";
import { setTimeout as sleep } from "node:timers/promises";

const ASK_MS = 2000;

/** The most an inspector's HTTP answer may be: a listing of one program's targets is well under 1 KB. */
const MAX_ANSWER = 64 * 1024;

/**
 * An inspector's HTTP answer (`/json/version`, `/json/list`) as JSON, or undefined when none came in time, it was
 * over MAX_ANSWER, or it was not JSON. Asked on a connection of its own, destroyed when the answer or the deadline
 * comes: a server that never answers is not left holding it (a web server, or a hostile program's port).
 */
export function inspectorJson(
  host: string,
  port: number,
  path: string,
  timeoutMs = ASK_MS,
): Promise<unknown> {
  return new Promise((resolve) => {
    const request = http.get({ host, port, path, agent: false, timeout: timeoutMs }, (answer) => {
      let body = "";
      answer.setEncoding("utf8");
      answer.on("data", (chunk: string) => {
        body += chunk;
        if (body.length > MAX_ANSWER) request.destroy();
      });
      answer.on("end", () => {
        try {
          resolve(JSON.parse(body) as unknown);
        } catch {
          resolve(undefined);
        }
      });
      answer.on("error", () => resolve(undefined));
    });
    request.on("timeout", () => request.destroy());
    request.on("error", () => resolve(undefined));
    request.on("close", () => resolve(undefined));
  });
}

/** Whether an inspector answers at host:port (its /json/version names node.js). */
export async function isNodeInspector(host: string, port: number): Promise<boolean> {
  const version = (await inspectorJson(host, port, "/json/version")) as { Browser?: unknown } | undefined;
  return typeof version?.Browser === "string" && version.Browser.startsWith("node.js");
}

/**
 * The port of `pid`'s inspector: already open, or opened now by SIGUSR1 (`opened`); undefined when none opened
 * within `waitMs` (Node could not bind its port: another program holds 9229).
 */
export async function inspectorOf(
  pid: number,
  waitMs = 5000,
): Promise<{ port: number; opened: boolean } | undefined> {
  const before = listeningPorts(pid);
  for (const port of before) if (await isNodeInspector("127.0.0.1", port)) return { port, opened: false };
  process.kill(pid, "SIGUSR1");
  for (const deadline = Date.now() + waitMs; Date.now() < deadline; await sleep(100)) {
    for (const port of listeningPorts(pid))
      if (!before.includes(port) && (await isNodeInspector("127.0.0.1", port))) return { port, opened: true };
  }
  return undefined;
}

/** The TCP ports `pid` listens on (its own network namespace's tables, its own sockets). */
function listeningPorts(pid: number): number[] {
  const sockets = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (target.startsWith("socket:[")) sockets.add(target.slice(8, -1));
      } catch {}
    }
  } catch {
    return [];
  }
  const ports: number[] = [];
  for (const table of ["tcp", "tcp6"]) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address, rem_address, st (0A = LISTEN), …, inode (the 10th field)
      if (fields[3] !== "0A" || !fields[9] || !sockets.has(fields[9])) continue;
      const port = Number.parseInt(fields[1]?.split(":")[1] ?? "", 16);
      if (port && !ports.includes(port)) ports.push(port);
    }
  }
  return ports;
}

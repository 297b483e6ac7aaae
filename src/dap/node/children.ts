/**
 * The program's child processes (child_process, cluster), followed as VS Code's JavaScript debugger follows them:
 * once the program runs, its environment gets `NODE_OPTIONS=--require <child-hook.cjs>` (set through the inspector,
 * so the program's own start is untouched), and every Node process it starts then opens its inspector, leaves its
 * address in a folder of the adapter's and waits; the adapter joins it as a thread of the session. A process that is
 * not Node is not debugged; Node processes it starts are. A program that gives a child an environment of its own
 * (not process.env) takes it out of the session.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import CDP from "chrome-remote-interface";
import { Target } from "./targets.js";

export interface ChildEvents {
  /** A child process, paused before its first line until this resolves. */
  started(target: Target): Promise<void>;
  ended(target: Target): void;
  nextThread(): number;
}

export interface Children {
  /** What the program evaluates once it runs, so that the Node processes it starts report. */
  readonly arming: string;
  close(): void;
}

const HOOK = fileURLToPath(new URL("./child-hook.cjs", import.meta.url));
const LOOK_MS = 50;
/** A child's note is its pid, address and command line: a few hundred bytes. */
const MAX_NOTE = 64 * 1024;

export function followChildren(on: ChildEvents): Children {
  const folder = mkdtempSync(path.join(tmpdir(), "runbound-node-children-"));
  writeFileSync(path.join(folder, "adapter.pid"), String(process.pid));
  const seen = new Set<string>();
  const timer = setInterval(() => {
    let names: string[];
    try {
      names = readdirSync(folder).filter((n) => n.endsWith(".json") && !seen.has(n));
    } catch {
      return;
    }
    for (const name of names) {
      seen.add(name);
      void join(path.join(folder, name), on);
    }
  }, LOOK_MS);
  timer.unref();
  // The program's own flags: fork() passes them on, and a child started with --inspect-brk would wait for a
  // debugger nobody sends.
  const arming = `(() => {
    const env = process.env;
    env.NODE_OPTIONS = [env.NODE_OPTIONS, "--require=" + ${JSON.stringify(JSON.stringify(HOOK))}].filter(Boolean).join(" ");
    env.RUNBOUND_NODE_CHILDREN = ${JSON.stringify(folder)};
    process.execArgv = process.execArgv.filter((arg) => !arg.startsWith("--inspect"));
  })()`;
  return {
    arming,
    close: () => {
      clearInterval(timer);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

async function join(file: string, on: ChildEvents): Promise<void> {
  let child: { pid?: number; url?: string; argv?: string[] };
  try {
    // The program can write in this folder too: what is not a child's short note is passed over.
    if (statSync(file).size > MAX_NOTE) return;
    child = JSON.parse(readFileSync(file, "utf8")) as typeof child;
  } catch {
    return;
  }
  if (typeof child.url !== "string" || !child.url.startsWith("ws://127.0.0.1:") || !existsSync(file)) return;
  let cdp: CDP.Client;
  try {
    cdp = await CDP({ target: child.url, local: true });
  } catch {
    return;
  }
  const script = child.argv?.[0] ? ` (${path.basename(child.argv[0])})` : "";
  const target = new Target(on.nextThread(), `process ${child.pid}${script}`, cdp);
  cdp.on("disconnect", () => on.ended(target));
  await on.started(target).catch(() => cdp.Runtime.runIfWaitingForDebugger().catch(() => undefined));
}

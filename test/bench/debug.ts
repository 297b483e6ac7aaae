/**
 * debug against the raw adapter on the same program: launch → first stop, and one step. `debug`'s step answers
 * with where it stopped, the frames and the locals; the raw baseline is measured both as the bare step (next +
 * stopped) and as the same information (next + stopped + stackTrace + scopes + variables), and once more against
 * debugpy as shipped (no TCP_NODELAY on pydevd's socket: every request waits ~44 ms on Nagle).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { DebugProtocol } from "@vscode/debugprotocol";
import { ADAPTERS } from "../../src/dap/adapters.js";
import { DapClient } from "../../src/dap/client.js";
import { createRun } from "../../src/index.js";
import { ProcessTracker } from "../../src/proc/tracker.js";

const STEPS = 30;
const ROUNDS = 7;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

export interface DebugBenchRow {
  name: string;
  ours: number;
  base: number;
  baseline: string;
}

export async function benchDebug(): Promise<DebugBenchRow[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "runbound-bench-debug-"));
  writeFileSync(path.join(dir, "pyproject.toml"), "");
  writeFileSync(
    path.join(dir, "loop.py"),
    "total = 0\nfor i in range(100000):\n    total += i\nprint(total)\n",
  );
  const rows: DebugBenchRow[] = [];
  const spec = ADAPTERS.find((a) => a.id === "debugpy")!;
  const resolved = spec.resolve(dir, dir);
  if ("missing" in resolved) throw new Error(resolved.missing);
  const oursLaunch: number[] = [];
  const oursStep: number[] = [];
  type Samples = { launch: number[]; step: number[]; stepFull: number[] };
  const raw: Samples = { launch: [], step: [], stepFull: [] };
  const stock: Samples = { launch: [], step: [], stepFull: [] };

  // Through runbound.
  const oursRound = async () => {
    const run = await createRun({ workdir: dir, conversationId: "bench", approver: "always", lsp: false });
    const client = await run.link({ surface: "full" });
    await client.callTool({
      name: "debug",
      arguments: { operation: "breakpoints", file: "loop.py", lines: [3] },
    });
    let start = performance.now();
    await client.callTool({ name: "debug", arguments: { operation: "launch", program: "loop.py" } });
    oursLaunch.push(performance.now() - start);
    await client.callTool({
      name: "debug",
      arguments: { operation: "breakpoints", file: "loop.py", lines: [] },
    });
    for (let i = 0; i < STEPS; i++) {
      start = performance.now();
      await client.callTool({ name: "debug", arguments: { operation: "step_over" } });
      oursStep.push(performance.now() - start);
    }
    await run.dispose();
  };

  // The raw adapter: the same interpreter, the same launch order, no runbound around it. The clock starts before
  // the adapter is spawned, as runbound's does. `asShipped`: debugpy's own launch, without runbound's TCP_NODELAY
  // environment for the program (what every other client gets).
  const rawRound = async (into: Samples, asShipped: boolean) => {
    const { env: _nodelay, ...shipped } = spec.launchArguments(path.join(dir, "loop.py"), [], dir);
    const launchArguments = asShipped ? shipped : spec.launchArguments(path.join(dir, "loop.py"), [], dir);
    const processes = new ProcessTracker();
    let start = performance.now();
    const adapter = processes.spawn("debugpy", resolved.command, resolved.args, {
      cwd: dir,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const dap = new DapClient(adapter.child.stdout!, adapter.child.stdin!);
    await dap.request(
      "initialize",
      {
        clientID: "runbound",
        adapterID: "debugpy",
        linesStartAt1: true,
        columnsStartAt1: true,
        pathFormat: "path",
        supportsRunInTerminalRequest: false,
      },
      10_000,
    );
    const initialized = dap.waitFor("initialized", 30_000);
    const stopped = dap.waitFor("stopped", 30_000);
    const launched = dap.send("launch", launchArguments, 30_000);
    await initialized;
    await dap.request(
      "setBreakpoints",
      { source: { path: path.join(dir, "loop.py") }, breakpoints: [{ line: 3 }] },
      10_000,
    );
    await dap.request("configurationDone", {}, 10_000);
    await launched;
    const first = (await stopped) as DebugProtocol.StoppedEvent;
    // The same answer debug launch gives: where it stopped, its frames and locals.
    const stack = await dap.request<DebugProtocol.StackTraceResponse["body"]>(
      "stackTrace",
      { threadId: first.body.threadId ?? 1, levels: 30 },
      10_000,
    );
    const firstScopes = await dap.request<DebugProtocol.ScopesResponse["body"]>(
      "scopes",
      { frameId: stack.stackFrames[0]!.id },
      10_000,
    );
    await dap.request("variables", { variablesReference: firstScopes.scopes[0]!.variablesReference }, 10_000);
    into.launch.push(performance.now() - start);
    await dap.request(
      "setBreakpoints",
      { source: { path: path.join(dir, "loop.py") }, breakpoints: [] },
      10_000,
    );
    const threadId = first.body.threadId ?? 1;
    for (let i = 0; i < STEPS; i++) {
      start = performance.now();
      const next = dap.waitFor("stopped", 10_000);
      await dap.request("next", { threadId }, 10_000);
      await next;
      into.step.push(performance.now() - start);
      const frames = await dap.request<DebugProtocol.StackTraceResponse["body"]>(
        "stackTrace",
        { threadId, levels: 30 },
        10_000,
      );
      const scopes = await dap.request<DebugProtocol.ScopesResponse["body"]>(
        "scopes",
        { frameId: frames.stackFrames[0]!.id },
        10_000,
      );
      await dap.request("variables", { variablesReference: scopes.scopes[0]!.variablesReference }, 10_000);
      into.stepFull.push(performance.now() - start);
    }
    dap.close("done");
    await processes.killAll();
  };

  try {
    // Alternating rounds: a launch takes ~2 s of Python start-up whose noise must fall on both sides alike.
    for (let round = 0; round < ROUNDS; round++) {
      await oursRound();
      await rawRound(raw, false);
      await rawRound(stock, true);
    }
    rows.push({
      name: "debugpy launch → first stop",
      ours: median(oursLaunch),
      base: median(raw.launch),
      baseline: "raw adapter, same launch order + the stop's frames and locals",
    });
    rows.push({
      name: "debugpy step (one-call answer)",
      ours: median(oursStep),
      base: median(raw.stepFull),
      baseline: "raw next + stopped + stackTrace + scopes + variables",
    });
    rows.push({
      name: "debugpy step vs debugpy as shipped",
      ours: median(oursStep),
      base: median(stock.stepFull),
      baseline: "the same raw requests, program launched without runbound's TCP_NODELAY environment",
    });
    rows.push({
      name: "debugpy step vs the bare step",
      ours: median(oursStep),
      base: median(raw.step),
      baseline: "raw next + stopped only (no frames, no locals)",
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

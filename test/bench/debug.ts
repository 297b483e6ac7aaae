/**
 * debug against the raw adapter on the same program, for debugpy, delve and lldb: launch → first stop, and one
 * step. `debug`'s step answers with where it stopped, the frames and the locals; the raw baseline is measured both
 * as the same information (next + stopped + stackTrace + scopes + variables) and as the bare step (next +
 * stopped). For debugpy also against debugpy as shipped (no TCP_NODELAY on pydevd's socket: every request waits
 * ~44 ms on Nagle). And against the floor: a tool on a run's link that only makes the raw requests — what the link
 * and the gate cost by themselves. In each round every side is launched, then the sides step in turn, one step each, so that
 * machine noise falls on all of them alike; the order of the sides turns each step.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { DebugProtocol } from "@vscode/debugprotocol";
import { ADAPTERS, type AdapterId } from "../../src/dap/adapters.js";
import { DapClient } from "../../src/dap/client.js";
import { createRun, defineTool } from "../../src/index.js";
import { ProcessTracker } from "../../src/proc/tracker.js";
import { defaultHome } from "../../src/setup/home.mjs";

const STEPS = 30;
const ROUNDS = 9;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

export interface DebugBenchRow {
  name: string;
  ours: number;
  base: number;
  baseline: string;
}

interface Case {
  adapter: AdapterId;
  /** Relative to the case's folder; what `launch` gets. */
  program: string;
  /** The loop body's line, where the first stop is. */
  file: string;
  line: number;
  setup: (dir: string) => void;
}

const CASES: Case[] = [
  {
    adapter: "debugpy",
    program: "loop.py",
    file: "loop.py",
    line: 3,
    setup: (dir) => {
      writeFileSync(path.join(dir, "pyproject.toml"), "");
      writeFileSync(
        path.join(dir, "loop.py"),
        "total = 0\nfor i in range(100000):\n    total += i\nprint(total)\n",
      );
    },
  },
  {
    adapter: "delve",
    program: ".",
    file: "main.go",
    line: 8,
    setup: (dir) => {
      writeFileSync(path.join(dir, "go.mod"), "module loop\n\ngo 1.21\n");
      writeFileSync(
        path.join(dir, "main.go"),
        'package main\n\nimport "fmt"\n\nfunc main() {\n\ttotal := 0\n\tfor i := 0; i < 100000; i++ {\n\t\ttotal += i\n\t}\n\tfmt.Println(total)\n}\n',
      );
    },
  },
  {
    adapter: "lldb",
    program: "loop",
    file: "loop.c",
    line: 6,
    setup: (dir) => {
      writeFileSync(path.join(dir, "CMakeLists.txt"), "");
      writeFileSync(
        path.join(dir, "loop.c"),
        '#include <stdio.h>\n\nint main(void) {\n  long total = 0;\n  for (long i = 0; i < 100000; i++) {\n    total += i;\n  }\n  printf("%ld\\n", total);\n  return 0;\n}\n',
      );
      execFileSync("gcc", ["-g", "-O0", "-o", path.join(dir, "loop"), path.join(dir, "loop.c")]);
    },
  },
];

interface Samples {
  launch: number[];
  step: number[];
  stepFull: number[];
  /** The raw side's full step plus three watch evaluations. */
  stepWatched: number[];
}

/** Three watch expressions every language here evaluates. */
const WATCHES = ["total", "i", "total + i"];

export async function benchDebug(): Promise<DebugBenchRow[]> {
  const rows: DebugBenchRow[] = [];
  const root = mkdtempSync(path.join(tmpdir(), "runbound-bench-debug-"));
  try {
    for (const c of CASES) {
      const dir = path.join(root, c.adapter);
      mkdirSync(dir);
      c.setup(dir);
      const samples = (): Samples => ({ launch: [], step: [], stepFull: [], stepWatched: [] });
      const ours = samples();
      const watched = samples();
      const raw = samples();
      const shipped = samples();
      const floor = samples();
      for (let round = 0; round < ROUNDS; round++) {
        // Both sides are launched, then their steps alternate one by one, so this machine's drifts in speed (a third
        // between runs, seen) fall on both alike.
        const sides: Side[] = [];
        try {
          sides.push(await openOurs(c, dir, ours));
          sides.push(await openOurs(c, dir, watched, WATCHES));
          sides.push(await openRaw(c, dir, raw, false, WATCHES));
          sides.push(await openForwarding(c, dir, floor));
          if (c.adapter === "debugpy") sides.push(await openRaw(c, dir, shipped, true));
          // The order turns each step: a side that always went right after debugpy as shipped (~176 ms idle on
          // Nagle) paid for the idle machine (cold caches, clocked down) in every sample.
          for (let i = 0; i < STEPS; i++)
            for (let k = 0; k < sides.length; k++) await sides[(i + k) % sides.length]!.step();
        } finally {
          for (const side of sides) await side.close();
        }
      }
      rows.push({
        name: `${c.adapter} launch → first stop`,
        ours: median(ours.launch),
        base: median(raw.launch),
        baseline: "raw adapter, same launch order + the stop's frames and locals",
      });
      rows.push({
        name: `${c.adapter} step (one-call answer)`,
        ours: median(ours.step),
        base: median(raw.stepFull),
        baseline: "raw next + stopped + stackTrace + scopes + variables",
      });
      rows.push({
        name: `${c.adapter} step, 3 watches`,
        ours: median(watched.step),
        base: median(raw.stepWatched),
        baseline: "the raw requests above + 3 evaluate (context watch)",
      });
      rows.push({
        name: `${c.adapter} step, forwarding tool`,
        ours: median(floor.step),
        base: median(raw.stepFull),
        baseline: "the same raw requests; a tool only makes them (the floor)",
      });
      if (c.adapter === "debugpy") {
        rows.push({
          name: "debugpy step vs debugpy as shipped",
          ours: median(ours.step),
          base: median(shipped.stepFull),
          baseline: "the same raw requests, program launched without runbound's TCP_NODELAY environment",
        });
      }
      rows.push({
        name: `${c.adapter} step vs the bare step`,
        ours: median(ours.step),
        base: median(raw.step),
        baseline: "raw next + stopped only (no frames, no locals)",
      });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return rows;
}

interface Side {
  step(): Promise<void>;
  close(): Promise<void>;
}

/** Through runbound: a linked client calling `debug`. */
async function openOurs(c: Case, dir: string, into: Samples, watch: string[] = []): Promise<Side> {
  const run = await createRun({ workdir: dir, conversationId: "bench", approver: "always", lsp: false });
  try {
    const client = await run.link({ surface: "full" });
    await client.callTool({
      name: "debug",
      arguments: { operation: "breakpoints", file: c.file, lines: [c.line] },
    });
    const start = performance.now();
    await client.callTool({
      name: "debug",
      arguments: { operation: "launch", program: c.program, ...(watch.length ? { watch } : {}) },
    });
    into.launch.push(performance.now() - start);
    await client.callTool({
      name: "debug",
      arguments: { operation: "breakpoints", file: c.file, lines: [] },
    });
    return {
      step: async () => {
        const start = performance.now();
        await client.callTool({ name: "debug", arguments: { operation: "step_over" } });
        into.step.push(performance.now() - start);
      },
      close: () => run.dispose(),
    };
  } catch (error) {
    await run.dispose();
    throw error;
  }
}

/**
 * The least an MCP tool can do: a tool on a run's link that makes the raw side's requests (next + stopped +
 * stackTrace + scopes + variables) and answers nothing more. Beside the raw side it shows what the link and the gate
 * cost by themselves on a step.
 */
async function openForwarding(c: Case, dir: string, into: Samples): Promise<Side> {
  const inner = await openRaw(c, dir, { launch: [], step: [], stepFull: [], stepWatched: [] }, false);
  const run = await createRun({ workdir: dir, approver: "always", lsp: false });
  run.registerTool(
    defineTool({
      name: "forward_step",
      title: "Forward a step",
      tier: "exec",
      needs: [],
      parallelSafe: false,
      description: "Steps the raw adapter once and asks for the frames and the locals.",
      input: {},
      output: {},
      run: async () => {
        await inner.step();
        return { text: "stepped", structured: {} };
      },
    }),
  );
  const client = await run.link({ surface: "full" });
  return {
    step: async () => {
      const start = performance.now();
      await client.callTool({ name: "forward_step", arguments: {} });
      into.step.push(performance.now() - start);
    },
    close: async () => {
      await run.dispose();
      await inner.close();
    },
  };
}

/**
 * The raw adapter: the same binary or interpreter, the same launch arguments and order, no runbound around it.
 * The clock starts before the adapter is spawned, as runbound's does. `asShipped` (debugpy): launched without
 * runbound's TCP_NODELAY environment for the program — what every other client gets.
 */
async function openRaw(
  c: Case,
  dir: string,
  into: Samples,
  asShipped: boolean,
  watches: readonly string[] = [],
): Promise<Side> {
  const spec = ADAPTERS.find((a) => a.id === c.adapter)!;
  const resolved = spec.resolve(dir, dir, defaultHome());
  if ("missing" in resolved) throw new Error(`${c.adapter}: ${resolved.missing}`);
  const program = path.resolve(dir, c.program);
  const { env: _nodelay, ...withoutEnv } = spec.launchArguments(program, [], dir);
  const launchArguments = asShipped ? withoutEnv : spec.launchArguments(program, [], dir);
  const processes = new ProcessTracker();
  try {
    const start = performance.now();
    const adapter = processes.spawn(c.adapter, resolved.command, resolved.args, {
      cwd: dir,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let dap: DapClient;
    if (resolved.transport === "stdio") {
      dap = new DapClient(adapter.child.stdout!, adapter.child.stdin!);
    } else {
      const address = await new Promise<{ host: string; port: number }>((resolve) => {
        let seen = "";
        adapter.child.stdout!.on("data", (d: Buffer) => {
          seen += d.toString();
          const m = /listening at:\s*([\d.]+):(\d+)/.exec(seen);
          if (m) resolve({ host: m[1]!, port: Number(m[2]) });
        });
      });
      const socket = net.createConnection(address);
      socket.setNoDelay(true);
      await new Promise((r) => socket.once("connect", r));
      dap = new DapClient(socket, socket);
    }
    await dap.request(
      "initialize",
      {
        clientID: "runbound",
        adapterID: c.adapter,
        linesStartAt1: true,
        columnsStartAt1: true,
        pathFormat: "path",
        supportsRunInTerminalRequest: false,
      },
      10_000,
    );
    const initialized = dap.waitFor("initialized", 60_000);
    const stopped = dap.waitFor("stopped", 60_000);
    const launched = dap.send("launch", launchArguments, 60_000);
    await initialized;
    const source = { path: path.join(dir, c.file) };
    await dap.request("setBreakpoints", { source, breakpoints: [{ line: c.line }] }, 10_000);
    await dap.request("configurationDone", {}, 10_000);
    await launched;
    const first = (await stopped) as DebugProtocol.StoppedEvent;
    const threadId = first.body.threadId ?? 1;
    // The same answer debug gives at a stop: where, its frames and the top frame's locals.
    const frameAndLocals = async () => {
      const frames = await dap.request<DebugProtocol.StackTraceResponse["body"]>(
        "stackTrace",
        { threadId, startFrame: 0, levels: 30 },
        10_000,
      );
      const scopes = await dap.request<DebugProtocol.ScopesResponse["body"]>(
        "scopes",
        { frameId: frames.stackFrames[0]!.id },
        10_000,
      );
      await dap.request("variables", { variablesReference: scopes.scopes[0]!.variablesReference }, 10_000);
      return frames.stackFrames[0]!.id;
    };
    await frameAndLocals();
    into.launch.push(performance.now() - start);
    await dap.request("setBreakpoints", { source, breakpoints: [] }, 10_000);
    return {
      step: async () => {
        const start = performance.now();
        const next = dap.waitFor("stopped", 10_000);
        await dap.request("next", { threadId }, 10_000);
        await next;
        into.step.push(performance.now() - start);
        const frameId = await frameAndLocals();
        into.stepFull.push(performance.now() - start);
        await Promise.all(
          watches.map((expression) =>
            dap.request("evaluate", { expression, frameId, context: "watch" }, 10_000).catch(() => undefined),
          ),
        );
        into.stepWatched.push(performance.now() - start);
      },
      close: async () => {
        dap.close("done");
        await processes.killAll();
      },
    };
  } catch (error) {
    await processes.killAll();
    throw error;
  }
}

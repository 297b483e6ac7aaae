/**
 * What each tool says it does (its effects, and so its annotations in tools/list) against what it does: every
 * built-in tool is called on the full surface of a real run, and each call is watched — the workdir's files before
 * and after, the run's processes (by its marker) that appeared, and the run's own kills. A tool that wrote a file,
 * started a process or ended one may not claim otherwise; one that starts nothing cannot reach the network.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolEffects } from "../src/annotations.js";
import { commandBackend, createRun, ProgrammaticQuestionPort, type Run } from "../src/index.js";
import { BUILTIN_TOOLS } from "../src/tools/index.js";
import { call, suiteWorkdir } from "./helpers.js";

const APP = "def greet(name):\n    print('hello', name)\n\n\ngreet('effects')\n";

/** Every file of the workdir with a digest of its bytes (runbound's own folders and caches left out). */
function files(dir: string, prefix = ""): Map<string, string> {
  const found = new Map<string, string>();
  for (const entry of readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    const rel = path.join(prefix, entry.name);
    if (entry.name === "__pycache__" || entry.name === ".runbound") continue;
    if (entry.isDirectory()) for (const [k, v] of files(dir, rel)) found.set(k, v);
    else if (entry.isFile())
      found.set(
        rel,
        createHash("sha256")
          .update(readFileSync(path.join(dir, rel)))
          .digest("hex"),
      );
  }
  return found;
}

/** The pids that carry the run's marker, wherever they were started (a kernel by its server, a program by its adapter). */
function marked(run: Run): Set<number> {
  const pids = readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .map(Number);
  return new Set(pids.filter((pid) => pid !== process.pid && run.processes.owns(pid)));
}

interface Observed {
  wrote: string[];
  started: number;
  killed: number;
}

describe("tool effects: what a tool says against what it does", () => {
  let run: Run;
  let workdir: string;
  let remove: () => Promise<void>;
  const seen = new Map<string, Observed>();
  let kills = 0;

  beforeAll(async () => {
    ({ dir: workdir, remove } = await suiteWorkdir({
      "pyproject.toml": "",
      "app.py": APP,
      "notes.txt": "alpha\nbeta\n",
      "report.ipynb": JSON.stringify({
        cells: [
          {
            cell_type: "code",
            execution_count: null,
            id: "a1b2c3d4",
            metadata: {},
            outputs: [],
            source: ["1 + 1"],
          },
        ],
        metadata: {},
        nbformat: 4,
        nbformat_minor: 5,
      }),
    }));
    const port = new ProgrammaticQuestionPort();
    port.onQuestion((q) => q.answer({ choices: [1] }));
    run = await createRun({
      workdir,
      conversationId: "effects",
      approver: "always",
      questions: { port, timeoutSeconds: 5 },
      // A worker that keeps running and writes nothing (a file it wrote later would be seen under another call).
      vibe: { fast: commandBackend("sh", ["-c", "cat > /dev/null; sleep 30"]) },
    });
    // The run's own kills: every process tree runbound ends goes through its tracker.
    const kill = run.processes.kill.bind(run.processes);
    run.processes.kill = (pid, grace) => {
      kills++;
      return kill(pid, grace);
    };
  }, 120_000);
  afterAll(async () => {
    await run?.dispose();
    await remove?.();
  });

  /** Calls `name` and records what the call did. */
  async function watched(name: string, args: Record<string, unknown>) {
    const client = await run.link({ surface: "full" });
    const [before, pids, killsBefore] = [files(workdir), marked(run), kills];
    const result = await call(client, name, args);
    // What a call set going (a worker's processes) counts for it: until the run's processes hold still.
    for (let last = marked(run), i = 0; i < 15; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const now = marked(run);
      if (now.size === last.size && [...now].every((pid) => last.has(pid))) break;
      last = now;
    }
    const after = files(workdir);
    const wrote = [...new Set([...before.keys(), ...after.keys()])].filter(
      (f) => before.get(f) !== after.get(f),
    );
    const started = [...marked(run)].filter((pid) => !pids.has(pid)).length;
    const prior = seen.get(name) ?? { wrote: [], started: 0, killed: 0 };
    seen.set(name, {
      wrote: [...prior.wrote, ...wrote],
      started: prior.started + started,
      killed: prior.killed + kills - killsBefore,
    });
    return result;
  }

  it("every tool, called as a model would", async () => {
    await watched("read", { path: "app.py" });
    await watched("ast_grep", { path: "app.py", pattern: "print($$$A)" });
    await watched("lsp", { action: "symbols", file: "app.py" });
    const staged = await watched("ast_edit", {
      path: "app.py",
      pattern: "greet($X)",
      rewrite: "greet($X, )",
    });
    const id = (staged.structuredContent as { edit_id: string }).edit_id;
    await watched("resolve", { edit_id: id, action: "discard" });
    await watched("write", { path: "made.txt", content: "made\n" });
    await watched("edit", { path: "made.txt", old_string: "made", new_string: "edited" });
    await watched("apply_patch", {
      patch: ["*** Begin Patch", "*** Add File: patched.txt", "+patched", "*** End Patch"].join("\n"),
    });
    await watched("lsp_rename", { file: "app.py", line: 1, symbol: "greet", new_name: "welcome" });
    await watched("eval", {
      code: "open('from_cell.txt', 'w').write('x')",
      description: "write a file from a cell",
    });
    await watched("eval", { code: "1 + 1", description: "start again in a fresh kernel", reset: true });
    await watched("notebook", { path: "report.ipynb" });
    await watched("notebook_edit", { path: "report.ipynb", action: "insert", source: "2 + 2" });
    await watched("notebook_run", { path: "report.ipynb", reset: true });
    await watched("debug", { operation: "launch", program: "app.py" });
    await watched("debug", { operation: "terminate" });
    await watched("ask_user", { question: "Which one?", options: [{ label: "this" }, { label: "that" }] });
    const spawned = await watched("vibe_spawn", { brief: "work in the background", label: "worker" });
    const worker = (spawned.structuredContent as { worker: { id: string } }).worker.id;
    await watched("vibe_list", {});
    await watched("vibe_wait", { worker_id: worker, timeout_seconds: 2 });
    await watched("vibe_send", { worker_id: worker, message: "once more" });
    await watched("vibe_kill", { worker_id: worker });
    expect([...seen.keys()].sort()).toEqual(BUILTIN_TOOLS.map((t) => t.name).sort());
  }, 300_000);

  it("no tool did what it says it does not", () => {
    const wrong: string[] = [];
    for (const spec of BUILTIN_TOOLS) {
      const effects = spec.effects as ToolEffects;
      const did = seen.get(spec.name);
      if (!did) continue;
      if (did.wrote.length && effects.files === "read") wrote(spec.name, `wrote ${did.wrote.join(", ")}`);
      if (did.started && effects.starts === "nothing") wrote(spec.name, `started ${did.started} processes`);
      // Code it starts reaches what the run's network allows.
      if (effects.starts === "code" && !effects.network)
        wrote(spec.name, "runs code, which may reach the network,");
      if (did.killed && !effects.kills) wrote(spec.name, `ended ${did.killed} process trees`);
    }
    function wrote(name: string, what: string) {
      wrong.push(`${name} ${what}, and says it does not`);
    }
    expect(wrong).toEqual([]);
    // The watch watched: these did each thing.
    expect(seen.get("write")?.wrote).toEqual(["made.txt"]);
    expect(seen.get("eval")?.wrote).toEqual(["from_cell.txt"]);
    expect(seen.get("lsp")?.started).toBeGreaterThan(0);
    expect(seen.get("eval")?.started).toBeGreaterThan(0);
    expect(seen.get("vibe_spawn")?.started).toBeGreaterThan(0);
    expect(seen.get("vibe_kill")?.killed).toBeGreaterThan(0);
    expect(seen.get("debug")?.killed).toBeGreaterThan(0);
  });
});

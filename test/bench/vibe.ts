/**
 * vibe_spawn + vibe_wait for a command worker, against spawning the same program directly with the brief on stdin
 * and reading its stdout: what the pool, the tools and the link add to one delegated task.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { commandBackend, createRun } from "../../src/index.js";

const ROUNDS = 30;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const SCRIPT = 'brief=$(cat); echo "did: $brief"';

function direct(dir: string, brief: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", SCRIPT], { cwd: dir, stdio: ["pipe", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.on("error", reject);
    child.on("close", () => resolve(out.trim()));
    child.stdin.end(brief);
  });
}

export async function benchVibe() {
  const dir = mkdtempSync(path.join(tmpdir(), "runbound-bench-vibe-"));
  const run = await createRun({
    workdir: dir,
    lsp: false,
    vibe: { fast: commandBackend("sh", ["-c", SCRIPT], { surfaces: ["plan"] }), maxWorkers: 2 },
  });
  try {
    const client = await run.link({ surface: "plan" });
    let n = 0;
    const delegated = async () => {
      await client.callTool({ name: "vibe_spawn", arguments: { brief: "task", label: "bench" } });
      const waited = await client.callTool({
        name: "vibe_wait",
        arguments: { worker_id: `w${++n}`, timeout_seconds: 30 },
      });
      if (waited.isError) throw new Error(JSON.stringify(waited.content));
    };
    const ours: number[] = [];
    const base: number[] = [];
    for (let i = 0; i < ROUNDS + 3; i++) {
      let start = performance.now();
      await delegated();
      const a = performance.now() - start;
      start = performance.now();
      await direct(dir, "task");
      const b = performance.now() - start;
      if (i >= 3) {
        ours.push(a);
        base.push(b);
      }
    }
    return [
      {
        name: "vibe_spawn + vibe_wait (command worker)",
        ours: median(ours),
        base: median(base),
        baseline: "the same sh -c run directly, brief on stdin",
      },
    ];
  } finally {
    await run.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

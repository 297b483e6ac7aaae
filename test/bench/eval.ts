/**
 * eval against bare @jupyterlab/services on the same kernel: a `1+1` cell, and a cell that makes one tool("read")
 * call (through eval: the stdin bridge, the gate and the read tool; bare: the same input_request answered directly).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { KernelMessage } from "@jupyterlab/services";
import { createRun } from "../../src/index.js";

const CALLS = 60;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

export async function benchEval() {
  const dir = mkdtempSync(path.join(tmpdir(), "runbound-bench-eval-"));
  writeFileSync(path.join(dir, "data.txt"), "alpha\nbeta\n");
  const run = await createRun({ workdir: dir, conversationId: "bench", approver: "always", lsp: false });
  try {
    const client = await run.link({ surface: "full" });
    const cell = (code: string) =>
      client.callTool({ name: "eval", arguments: { code, description: "a cell for the eval benchmark" } });
    let start = performance.now();
    await cell("0");
    const coldStart = performance.now() - start;
    const kernel = await run.resource("kernels")!.kernel("python");
    const bare = async (code: string) => {
      const future = kernel.requestExecute({ code, stop_on_error: false, allow_stdin: true });
      future.onStdin = (msg) => {
        if (msg.header.msg_type !== "input_request") return;
        const content = readFileSync(path.join(dir, "data.txt"), "utf8");
        future.sendInputReply(
          { status: "ok", value: JSON.stringify({ result: { text: content } }) },
          (msg as KernelMessage.IInputRequestMsg).header,
        );
      };
      await future.done;
    };
    // Alternate the two sides call by call, so that drift on a 2-core machine falls on both alike.
    const pair = async (ours: () => Promise<unknown>, base: () => Promise<unknown>) => {
      const a: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < CALLS; i++) {
        start = performance.now();
        await ours();
        a.push(performance.now() - start);
        start = performance.now();
        await base();
        b.push(performance.now() - start);
      }
      return { ours: median(a), base: median(b) };
    };
    const toolCell = "r = tool('read', {'path': 'data.txt'})\nlen(r['text'])";
    await pair(
      () => cell("1+1"),
      () => bare("1+1"),
    );
    const plain = await pair(
      () => cell("1+1"),
      () => bare("1+1"),
    );
    const bridged = await pair(
      () => cell(toolCell),
      () => bare(toolCell),
    );
    const rows = [
      { name: "eval 1+1", ...plain, baseline: "bare @jupyterlab/services, same kernel" },
      {
        name: 'eval with one tool("read")',
        ...bridged,
        baseline: "same cell, input_request answered directly",
      },
      {
        name: "eval first cell (server + kernel start)",
        ours: coldStart,
        base: Number.NaN,
        baseline: "no baseline: the one-time start",
      },
    ];
    return rows;
  } finally {
    await run.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

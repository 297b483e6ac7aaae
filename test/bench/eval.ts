/**
 * eval against bare @jupyterlab/services on the same kernel: a `1+1` cell, and a cell that makes one tool("read")
 * call (through eval: the stdin bridge, the gate and the read tool; bare: the same input_request answered directly).
 * And a cell's output read as the notebook shows it (redraws interpreted) against keeping its last 32 KB as it is.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { KernelMessage } from "@jupyterlab/services";
import { TerminalText } from "../../src/files/terminal-text.js";
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
    return [...rows, ...benchTerminalText()];
  } finally {
    await run.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One 100 MB stream message (a cell printing without pause): interpreted, against the last 32 KB kept as it is. */
function benchTerminalText() {
  const kept = 32 * 1024;
  const messages = {
    "100 MB of lines": "abcdefghi\n".repeat(10 * 2 ** 20),
    "100 MB of redrawn lines": "ab\rc\n".repeat(20 * 2 ** 20),
  };
  return Object.entries(messages).map(([what, text]) => {
    const ours: number[] = [];
    const base: number[] = [];
    for (let i = 0; i < 5; i++) {
      let start = performance.now();
      new TerminalText(kept).write(text);
      ours.push(performance.now() - start);
      start = performance.now();
      // What runbound did before: the new text joined to what was kept, and the last 32 KB of that kept.
      let raw = "y".repeat(kept);
      raw += text;
      raw = raw.slice(-kept);
      if (raw.length !== kept) throw new Error("kept the wrong length");
      base.push(performance.now() - start);
    }
    return {
      name: `cell output: ${what}`,
      ours: median(ours),
      base: median(base),
      baseline: "joined to what was kept, the last 32 KB kept (no redraws read: before)",
    };
  });
}

/**
 * eval against bare @jupyterlab/services on the same kernel: a `1+1` cell, and a cell that makes one tool("read")
 * call (through eval: the stdin bridge, the gate and the read tool; bare: the same input_request answered directly).
 * And a cell's output read as the notebook shows it (redraws interpreted) against keeping its last 32 KB as it is.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { KernelMessage } from "@jupyterlab/services";
import { TerminalText } from "../../src/files/terminal-text.js";
import { createRun } from "../../src/index.js";
import { descendantsOf } from "../../src/proc/tree.js";

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

/** RSS in MB of a process, 0 when it is gone. */
function rssOf(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/**
 * runbound's JavaScript kernel on Node against Deno's (kernels.javascript "deno"), the same cells through eval: the
 * first cell (the kernel's start), `1+1`, and each kernel's resident memory once warm (printed: the table is in ms).
 */
export async function benchJavaScriptKernels() {
  // From the build, as installed: in a checkout the kernel's source runs through tsx, whose loader weighs ~45 MB.
  const built = path.resolve(import.meta.dirname, "../../dist/src/index.js");
  if (!existsSync(built))
    throw new Error("the JavaScript kernels' benchmark runs the build: npm run build first");
  const { createRun: createBuiltRun } = (await import(built)) as { createRun: typeof createRun };
  const measured: Record<string, { start: number; plain: number; rss: number }> = {};
  for (const javascript of ["node", "deno"] as const) {
    const dir = mkdtempSync(path.join(tmpdir(), `runbound-bench-js-${javascript}-`));
    const run = await createBuiltRun({
      workdir: dir,
      approver: "always",
      lsp: false,
      kernels: { javascript },
    });
    try {
      const client = await run.link({ surface: "full" });
      const jsCell = (code: string) =>
        client.callTool({
          name: "eval",
          arguments: { code, language: "javascript", description: "a cell for the kernel benchmark" },
        });
      // The Jupyter server first (a Python cell), so the first JavaScript cell times the kernel's start alone.
      await client.callTool({
        name: "eval",
        arguments: { code: "0", description: "start the jupyter server first" },
      });
      let start = performance.now();
      await jsCell("0");
      const first = performance.now() - start;
      const times: number[] = [];
      for (let i = 0; i < CALLS; i++) {
        start = performance.now();
        await jsCell("1+1");
        times.push(performance.now() - start);
      }
      await jsCell("const rows = Array.from({ length: 1000 }, (_, i) => ({ i })); rows.length");
      // The kernel's own process: its program is node (or deno) itself, not a sandbox's wrapper around it.
      const program = javascript === "node" ? /\/node$/ : /\/deno$/;
      const kernelArgument = javascript === "node" ? "--zeromq" : "jupyter";
      let rss = 0;
      for (const pid of await descendantsOf(process.pid)) {
        const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
        if (program.test(argv[0] ?? "") && argv.includes(kernelArgument)) rss = rssOf(pid);
      }
      measured[javascript] = { start: first, plain: median(times), rss };
    } finally {
      await run.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const { node, deno } = measured as Record<"node" | "deno", { start: number; plain: number; rss: number }>;
  console.log(
    `JavaScript kernel resident memory, warm: runbound's on Node ${process.version} ${node.rss.toFixed(1)} MB, Deno's ${deno.rss.toFixed(1)} MB (${(node.rss / deno.rss).toFixed(2)}×)`,
  );
  return [
    {
      name: "JavaScript kernel start (first cell)",
      ours: node.start,
      base: deno.start,
      baseline: "Deno's kernel",
    },
    { name: "JavaScript eval 1+1", ours: node.plain, base: deno.plain, baseline: "Deno's kernel" },
  ];
}

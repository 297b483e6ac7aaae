/**
 * `npm run bench -- scale`: many runs on one host. N concurrent runs (10, 30, 60 where memory allows) on copies of
 * examples/workspace, each from its own client making a mixed sequence (lsp in TypeScript and Python, ast_grep,
 * a Python and a JavaScript cell, read): memory of this process and every descendant (PSS, so pages shared between
 * processes count once), warm-up time, the calls' p50/p99 against the same calls with one run alone, processes left
 * after dispose; an idled-out run's memory; then 100 create/dispose cycles, processes and host memory every 10.
 */
import { readFileSync } from "node:fs";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { freemem, tmpdir } from "node:os";
import path from "node:path";
import { createRun, type Run } from "../../src/index.js";
import { descendantsOf } from "../../src/proc/tree.js";
import type { RunLink } from "../../src/run-link.js";
import type { BenchRow } from "./lsp.js";

const WORKSPACE = path.resolve(import.meta.dirname, "../../examples/workspace");
/** RUNBOUND_SCALE_SIZES=2,5 for a quick look; the figures are at 10, 30 and 60. */
const SIZES = (process.env.RUNBOUND_SCALE_SIZES ?? "10,30,60").split(",").map(Number);
const CYCLES = Number(process.env.RUNBOUND_SCALE_CYCLES ?? 100);
/** What a warm run is measured to hold at most; a size runs only if that many fit in the free memory. */
const WARM_RUN_MB = 600;

type Call = [name: string, args: Record<string, unknown>];
const SEQUENCE: Call[] = [
  ["lsp", { action: "definition", file: "ts/src/main.ts", line: 4, symbol: "stock.add" }],
  ["lsp", { action: "references", file: "python/inventory/stock.py", line: 13, symbol: "Stock" }],
  ["ast_grep", { pattern: "console.log($$$A)", language: "typescript" }],
  ["eval", { code: "1 + 1", description: "add two numbers as a warm check" }],
  ["eval", { code: "1 + 1", language: "javascript", description: "add two numbers as a warm check" }],
  ["read", { path: "ts/src/stock.ts" }],
];

const mb = (kb: number) => kb / 1024;
/** Runs warmed up at once. */
const WARM_AT_ONCE = 4;

/** `work` for every item, at most `width` at a time. */
async function inWaves<T>(
  items: readonly T[],
  width: number,
  work: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** PSS in kB of a process (its share of pages shared with others), 0 when it is gone. */
function pss(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
    return Number(m?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** This process and every descendant: their count and PSS in MB, and the share of each kind of process. */
async function footprint(): Promise<{ processes: number; mb: number; byKind: Map<string, number> }> {
  const pids = [process.pid, ...(await descendantsOf(process.pid))];
  const byKind = new Map<string, number>();
  let total = 0;
  for (const pid of pids) {
    const kb = pss(pid);
    total += kb;
    const kind = kindOf(pid);
    byKind.set(kind, (byKind.get(kind) ?? 0) + mb(kb));
  }
  return { processes: pids.length - 1, mb: mb(total), byKind };
}

function kindOf(pid: number): string {
  if (pid === process.pid) return "host process";
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
    for (const [kind, pattern] of [
      ["Deno kernel", /deno jupyter/],
      ["ipykernel", /ipykernel_launcher/],
      ["jupyter_server", /jupyter_server/],
      ["pyright", /pyright/],
      ["tsgo", /tsgo|typescript-go|native-preview/],
      ["ast-grep", /ast-grep|sg /],
    ] as const)
      if (pattern.test(argv)) return kind;
    return path.basename(argv.split(" ")[0] ?? "?");
  } catch {
    return "gone";
  }
}

const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? Number.NaN;

interface Live {
  run: Run;
  client: RunLink;
  dir: string;
}

async function startRun(idleSeconds?: number): Promise<Live> {
  const dir = await mkdtemp(path.join(tmpdir(), "runbound-bench-scale-"));
  await cp(WORKSPACE, dir, { recursive: true });
  const run = await createRun({
    workdir: dir,
    approver: "always",
    ...(idleSeconds ? { lsp: { idleSeconds }, ast: { idleSeconds } } : {}),
  });
  return { run, client: await run.link({ surface: "full" }), dir };
}

async function stopRun(live: Live): Promise<void> {
  await live.run.dispose();
  await rm(live.dir, { recursive: true, force: true });
}

/** Each call of the sequence once, timed; a failed call throws (a bench of errors measures nothing). */
async function sequence(live: Live): Promise<number[]> {
  const times: number[] = [];
  for (const [name, args] of SEQUENCE) {
    const start = performance.now();
    const result = await live.client.callTool({ name, arguments: args });
    times.push(performance.now() - start);
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content).slice(0, 300)}`);
  }
  return times;
}

function printKinds(byKind: Map<string, number>, runs: number): void {
  const rows = [...byKind].sort((a, b) => b[1] - a[1]).filter(([, v]) => v >= 1);
  for (const [kind, value] of rows)
    console.log(
      `    ${kind.padEnd(16)} ${value.toFixed(0).padStart(7)} MB  ${(value / runs).toFixed(1).padStart(6)} MB a run`,
    );
}

export async function benchScale(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const idle = await footprint();
  console.log(`scale: host at rest ${idle.mb.toFixed(0)} MB in ${idle.processes} processes`);

  // One run alone: the calls' latency when nothing else runs.
  const alone = await startRun();
  await sequence(alone);
  const aloneTimes: number[] = [];
  for (let i = 0; i < 5; i++) aloneTimes.push(...(await sequence(alone)));
  await stopRun(alone);

  for (const n of SIZES) {
    if (freemem() / (1024 * 1024) < n * WARM_RUN_MB) {
      console.log(
        `scale ${n} runs: skipped, ${(freemem() / 2 ** 30).toFixed(1)} GB free for ${n} × ${WARM_RUN_MB} MB`,
      );
      continue;
    }
    // Conversations begin a few at a time, as a harness's do: 30 cold pyright starts at once on 2 cores answer
    // nothing within the request deadline.
    const start = performance.now();
    const lives = await Promise.all(Array.from({ length: n }, () => startRun()));
    // A failed call must not leave 30 runs' servers and copies behind.
    try {
      await inWaves(lives, WARM_AT_ONCE, sequence);
      const warm = performance.now() - start;
      const used = await footprint();
      const times = (await Promise.all(lives.map(sequence))).flat();
      console.log(
        `scale ${n} runs: warm-up ${(warm / 1000).toFixed(1)} s (${WARM_AT_ONCE} at a time); ${used.mb.toFixed(0)} MB in ${used.processes} processes, ${((used.mb - idle.mb) / n).toFixed(0)} MB a warm run`,
      );
      printKinds(used.byKind, n);
      rows.push({
        name: `scale ${n} runs: call p50`,
        ours: percentile(times, 0.5),
        base: percentile(aloneTimes, 0.5),
        baseline: "the same calls, one run alone",
      });
      rows.push({
        name: `scale ${n} runs: call p99`,
        ours: percentile(times, 0.99),
        base: percentile(aloneTimes, 0.99),
        baseline: "the same calls, one run alone",
      });
    } finally {
      await Promise.all(lives.map(stopRun));
    }
    const after = await footprint();
    console.log(
      `scale ${n} runs: after dispose ${after.processes - idle.processes} processes more than at rest, ${after.mb.toFixed(0)} MB`,
    );
  }

  // An idled-out run: its language servers stopped for idleness (kernels keep their state unless told otherwise).
  const idleSeconds = 10;
  const quiet = await Promise.all(Array.from({ length: 5 }, () => startRun(idleSeconds)));
  await Promise.all(
    quiet.map(async (live) => {
      for (const [name, args] of [SEQUENCE[0]!, SEQUENCE[1]!, SEQUENCE[2]!, SEQUENCE[5]!])
        await live.client.callTool({ name, arguments: args });
    }),
  );
  const busy = await footprint();
  await new Promise((r) => setTimeout(r, (idleSeconds + 5) * 1000));
  const idled = await footprint();
  console.log(
    `scale idled-out runs (lsp, ast_grep and read used, then ${idleSeconds} s idle): ${((busy.mb - idle.mb) / 5).toFixed(0)} MB a run before, ${((idled.mb - idle.mb) / 5).toFixed(0)} MB after, in ${idled.processes} processes`,
  );
  printKinds(idled.byKind, 5);
  await Promise.all(quiet.map(stopRun));

  // Create/dispose cycles, each with one cell and one lsp call: nothing may accumulate.
  for (let i = 1; i <= CYCLES; i++) {
    const live = await startRun();
    await live.client.callTool({ name: "eval", arguments: SEQUENCE[3]![1] });
    await live.client.callTool({ name: "lsp", arguments: SEQUENCE[0]![1] });
    await stopRun(live);
    if (i % 10 === 0) {
      const now = await footprint();
      console.log(
        `scale cycles: after ${i}: ${now.processes - idle.processes} processes more than at rest, ${now.mb.toFixed(0)} MB`,
      );
    }
  }
  return rows;
}

/**
 * debug snapshot (one call) against the loop it replaces: a breakpoint, then continue and an evaluate per recorded
 * value at each hit — the same 20 hits of i and total, on debugpy, through the same link.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRun } from "../../src/index.js";
import type { BenchRow } from "./lsp.js";

const HITS = 20;
const PROGRAM =
  "total = 0\nfor i in range(25):\n    total += i * 2\n    print(total)\nprint('done', total)\n";

export async function benchSnapshot(): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "runbound-bench-snapshot-"));
  writeFileSync(path.join(dir, "pyproject.toml"), '[project]\nname = "loop"\n');
  writeFileSync(path.join(dir, "loop.py"), PROGRAM);
  const run = await createRun({
    workdir: dir,
    conversationId: "bench-snapshot",
    approver: "always",
    lsp: false,
  });
  try {
    const client = await run.link({ surface: "full" });
    let calls = 0;
    const debug = (args: Record<string, unknown>) => {
      calls++;
      return client.callTool({ name: "debug", arguments: args });
    };
    const launch = async () => {
      await debug({ operation: "breakpoints", file: "loop.py", lines: [1] });
      await debug({ operation: "launch", program: "loop.py" });
      calls = 0;
    };
    const ours: number[] = [];
    const base: number[] = [];
    const counts = { ours: 0, base: 0 };
    for (let round = 0; round < 3; round++) {
      await launch();
      let start = performance.now();
      await debug({
        operation: "snapshot",
        file: "loop.py",
        line: 4,
        expressions: ["i", "total"],
        max_hits: HITS,
      });
      ours.push(performance.now() - start);
      counts.ours = calls;
      await debug({ operation: "terminate" });
      await launch();
      start = performance.now();
      await debug({ operation: "breakpoints", file: "loop.py", lines: [1, 4] });
      for (let hit = 0; hit < HITS; hit++) {
        await debug({ operation: "continue" });
        await debug({ operation: "evaluate", expression: "i" });
        await debug({ operation: "evaluate", expression: "total" });
      }
      await debug({ operation: "breakpoints", file: "loop.py", lines: [1] });
      base.push(performance.now() - start);
      counts.base = calls;
      await debug({ operation: "terminate" });
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    return [
      {
        name: `debug snapshot, ${HITS} hits (${counts.ours} call vs ${counts.base})`,
        ours: median(ours),
        base: median(base),
        baseline: "breakpoint, continue + 2 evaluates a hit",
      },
    ];
  } finally {
    await run.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

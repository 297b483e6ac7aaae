/**
 * The confined place against the host, on the same workdir in one process: an eval `1+1`, a debug step over, and an
 * lsp definition served by a trusted workspace's own pyright (the servers that run confined) — and the cold starts
 * (the first cell, a launch to a breakpoint, the first definition). Calls alternate between the two runs.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { createRun, type Run } from "../../src/index.js";
import { npmBin } from "../../src/setup/npm.js";

const CALLS = 40;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const PROGRAM = "total = 0\nfor i in range(100000):\n    total += i\nprint(total)\n";

function workdir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "runbound-bench-places-"));
  writeFileSync(path.join(dir, "pyproject.toml"), "");
  writeFileSync(path.join(dir, "loop.py"), PROGRAM);
  writeFileSync(path.join(dir, "app.py"), "def greet(name):\n    return name\n\n\ngreet('x')\n");
  // The project's own pyright: in a trusted workspace it is the one that runs, and it runs where code runs.
  const bin = path.join(dir, "node_modules", ".bin");
  mkdirSync(bin, { recursive: true });
  const real = npmBin("pyright", "pyright-langserver")!;
  writeFileSync(
    path.join(bin, "pyright-langserver"),
    `#!/bin/sh\nexec "${process.execPath}" "${real}" "$@"\n`,
  );
  chmodSync(path.join(bin, "pyright-langserver"), 0o755);
  return dir;
}

interface Side {
  readonly run: Run;
  readonly client: Client;
  readonly cold: { cell: number; launch: number; definition: number };
}

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });

async function side(dir: string, confine: "preferred" | "off"): Promise<Side> {
  const run = await createRun({
    workdir: dir,
    conversationId: `bench-${confine}`,
    approver: "always",
    trust: "workspace",
    confine,
  });
  const client = await run.link({ surface: "full" });
  const timed = async (f: () => Promise<unknown>) => {
    const start = performance.now();
    await f();
    return performance.now() - start;
  };
  const cell = await timed(() =>
    call(client, "eval", { code: "0", description: "a cell for the places bench" }),
  );
  await call(client, "debug", { operation: "breakpoints", file: "loop.py", lines: [3] });
  const launch = await timed(() => call(client, "debug", { operation: "launch", program: "loop.py" }));
  await call(client, "debug", { operation: "breakpoints", file: "loop.py", lines: [] });
  const definition = await timed(() =>
    call(client, "lsp", { action: "definition", file: "app.py", line: 5, symbol: "greet" }),
  );
  return { run, client, cold: { cell, launch, definition } };
}

export async function benchPlaces() {
  const dir = workdir();
  const confined = await side(dir, "preferred");
  const host = await side(dir, "off");
  try {
    if (confined.run.processes.confinedPlace.kind !== "confined")
      throw new Error(`the places bench needs confinement: ${confined.run.unconfined}`);
    const pair = async (op: (client: Client) => Promise<unknown>) => {
      const a: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < CALLS; i++) {
        for (const [s, into] of i % 2
          ? ([
              [host, b],
              [confined, a],
            ] as const)
          : ([
              [confined, a],
              [host, b],
            ] as const)) {
          const start = performance.now();
          await op(s.client);
          into.push(performance.now() - start);
        }
      }
      return { ours: median(a), base: median(b) };
    };
    const eval11 = await pair((c) =>
      call(c, "eval", { code: "1+1", description: "a cell for the places bench" }),
    );
    const step = await pair((c) => call(c, "debug", { operation: "step_over" }));
    const definition = await pair((c) =>
      call(c, "lsp", { action: "definition", file: "app.py", line: 5, symbol: "greet" }),
    );
    const baseline = "the same call on the host (confine off)";
    return [
      { name: "confined eval 1+1", ...eval11, baseline },
      { name: "confined debug step_over", ...step, baseline },
      { name: "confined lsp definition (project's pyright)", ...definition, baseline },
      {
        name: "confined first cell (server + kernel)",
        ours: confined.cold.cell,
        base: host.cold.cell,
        baseline,
      },
      {
        name: "confined launch to a breakpoint",
        ours: confined.cold.launch,
        base: host.cold.launch,
        baseline,
      },
      {
        name: "confined first definition (server start)",
        ours: confined.cold.definition,
        base: host.cold.definition,
        baseline,
      },
    ];
  } finally {
    await confined.run.dispose();
    await host.run.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The confined place against the host, on the same workdir in one process: an eval `1+1`, a debug step over, and an
 * lsp definition served by a trusted workspace's own pyright (the servers that run confined) — and the cold starts
 * (the first cell, a launch to a breakpoint, the first definition: medians of three fresh runs each). Calls alternate
 * between the two runs.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type ContainerOptions, createRun, type Run } from "../../src/index.js";
import type { RunLink } from "../../src/run-link.js";
import { defaultHome, homeLayout } from "../../src/setup/home.mjs";
import { npmBin } from "../../src/setup/npm.js";

const CALLS = 40;
/** Fresh runs per place for the cold starts (first cell, launch, definition): the rows take their medians. */
const COLD = 3;
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
  readonly client: RunLink;
  readonly cold: { cell: number; launch: number; definition: number };
}

const call = (client: RunLink, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }, { timeout: 120_000 });

let made = 0;

async function side(dir: string, confine: "preferred" | "off", container?: ContainerOptions): Promise<Side> {
  const run = await createRun({
    workdir: dir,
    conversationId: `bench-${confine}${container ? "-container" : ""}-${++made}`,
    approver: "always",
    trust: "workspace",
    confine,
    ...(container ? { container } : {}),
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

/** A podman container over the host's root filesystem, the workdir and runbound's home at other paths. */
function startContainer(dir: string, scratch: string): ContainerOptions | undefined {
  process.env.CONTAINERS_CONF = path.resolve(import.meta.dirname, "../../.tools/podman/containers.conf");
  spawnSync("podman", ["rm", "-f", CONTAINER]);
  const home = homeLayout(defaultHome()).home;
  const mounts = ["-v", `${dir}:/workspace`, "-v", `${home}:/opt/runbound`, "-v", `${scratch}:/scratch`];
  const args = [
    "run",
    "-d",
    "--name",
    CONTAINER,
    "--network",
    "host",
    ...mounts,
    "--rootfs",
    "/:O",
    "sleep",
    "3600",
  ];
  if (spawnSync("podman", args).status !== 0) return undefined;
  return {
    exec: ["podman", "exec", "-i", CONTAINER],
    paths: { [dir]: "/workspace", [home]: "/opt/runbound", [scratch]: "/scratch" },
    scratch,
  };
}

/** A fresh run's cold starts in a place, the run disposed after. */
async function coldOf(
  dir: string,
  confine: "preferred" | "off",
  container?: ContainerOptions,
): Promise<Side["cold"]> {
  const fresh = await side(dir, confine, container);
  await fresh.run.dispose();
  return fresh.cold;
}

const CONTAINER = `runbound-bench-${process.pid}`;

export async function benchPlaces() {
  const dir = workdir();
  const scratch = mkdtempSync(path.join(tmpdir(), "runbound-bench-scratch-"));
  // The host's shared Jupyter server, started first: the host's first cell does not pay for it (a second run on the
  // host never does). A confined run's first cell starts its own server in its sandbox, and that is the cost shown.
  const server = await createRun({ workdir: dir, confine: "off", approver: "always" });
  const started = await call(await server.link({ surface: "full" }), "eval", {
    code: "0",
    description: "start the host's shared Jupyter server first",
  });
  if (started.isError) throw new Error(`the host's server did not start: ${JSON.stringify(started.content)}`);
  const confined = await side(dir, "preferred");
  const host = await side(dir, "off");
  const options = startContainer(dir, scratch);
  const contained = options ? await side(dir, "off", options) : undefined;
  try {
    const colds = {
      confined: [confined.cold],
      host: [host.cold],
      contained: contained ? [contained.cold] : [],
    };
    for (let k = 1; k < COLD; k++) {
      colds.confined.push(await coldOf(dir, "preferred"));
      colds.host.push(await coldOf(dir, "off"));
      if (options) colds.contained.push(await coldOf(dir, "off", options));
    }
    const cold = (of: keyof typeof colds, what: keyof Side["cold"]) => median(colds[of].map((c) => c[what]));
    if (confined.run.processes.confinedPlace.kind !== "confined")
      throw new Error(`the places bench needs confinement: ${confined.run.unconfined}`);
    const pair = async (op: (client: RunLink) => Promise<unknown>, ours: Side = confined) => {
      const a: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < CALLS; i++) {
        const order = i % 2 ? [host, ours] : [ours, host];
        for (const s of order) {
          const start = performance.now();
          await op(s.client);
          (s === host ? b : a).push(performance.now() - start);
        }
      }
      return { ours: median(a), base: median(b) };
    };
    const evalCell = (c: RunLink) =>
      call(c, "eval", { code: "1+1", description: "a cell for the places bench" });
    const stepOver = (c: RunLink) => call(c, "debug", { operation: "step_over" });
    const define = (c: RunLink) =>
      call(c, "lsp", { action: "definition", file: "app.py", line: 5, symbol: "greet" });
    const baseline = "the same call on the host (confine off)";
    const rows = [
      { name: "confined eval 1+1", ...(await pair(evalCell)), baseline },
      { name: "confined debug step_over", ...(await pair(stepOver)), baseline },
      { name: "confined lsp definition (project's pyright)", ...(await pair(define)), baseline },
      {
        name: "confined first cell (a kernel)",
        ours: cold("confined", "cell"),
        base: cold("host", "cell"),
        baseline,
      },
      {
        name: "confined launch to a breakpoint",
        ours: cold("confined", "launch"),
        base: cold("host", "launch"),
        baseline,
      },
      {
        name: "confined first definition (server start)",
        ours: cold("confined", "definition"),
        base: cold("host", "definition"),
        baseline,
      },
    ];
    if (contained) {
      rows.push(
        { name: "container eval 1+1", ...(await pair(evalCell, contained)), baseline },
        { name: "container debug step_over", ...(await pair(stepOver, contained)), baseline },
        { name: "container lsp definition (pyright)", ...(await pair(define, contained)), baseline },
        {
          name: "container first cell (server + kernel)",
          ours: cold("contained", "cell"),
          base: cold("host", "cell"),
          baseline: "the host's first cell: a kernel, the host's server already up",
        },
        {
          name: "container launch to a breakpoint",
          ours: cold("contained", "launch"),
          base: cold("host", "launch"),
          baseline,
        },
        {
          name: "container first definition",
          ours: cold("contained", "definition"),
          base: cold("host", "definition"),
          baseline,
        },
      );
    }
    return rows;
  } finally {
    await confined.run.dispose();
    await host.run.dispose();
    await server.dispose();
    await contained?.run.dispose();
    spawnSync("podman", ["rm", "-f", "-t", "0", CONTAINER]);
    rmSync(dir, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  }
}

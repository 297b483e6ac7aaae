/**
 * One Jupyter server for the host's unconfined runs: each run's kernels on it are its own — its folder, state and
 * key folder — and eval addresses no other; a run's dispose ends its kernels only; the server dies with all its
 * kernels and comes back on the next cell, each run told once that its state was lost. A confined run keeps a server
 * of its own, in its sandbox: its kernels have a loopback nobody else shares.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createRun, type Run } from "../src/index.js";
import { probeBubblewrap } from "../src/proc/bubblewrap.js";
import { descendantsOf, isAlive } from "../src/proc/tree.js";
import { call, textOf, track, workdirWith } from "./helpers.js";

const label = "a cell for the shared server tests";

async function twoRuns(
  confine: "off" | "preferred" = "off",
): Promise<{ runs: Run[]; cell: (i: number, code: string) => Promise<string> }> {
  const runs = [
    track(await createRun({ workdir: await workdirWith(), approver: "always", lsp: false, confine })),
    track(await createRun({ workdir: await workdirWith(), approver: "always", lsp: false, confine })),
  ];
  const clients = await Promise.all(runs.map((r) => r.link({ surface: "full" })));
  const cell = async (i: number, code: string) =>
    textOf(await call(clients[i]!, "eval", { code, description: label }));
  return { runs, cell };
}

const serverOf = (run: Run) => run.resource("kernels")!.serverPid;
const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");

/** The kernel itself, not the sandbox's processes around it (whose command lines name it too). */
const isKernel = (argv: string[]) =>
  (argv[1] === "-m" && argv[2] === "ipykernel_launcher") || argv[1]?.endsWith("/kernel-launch.py") === true;

/** The connection files (the kernels' keys) of the kernels under the server, as their command lines name them. */
async function connectionFiles(server: number): Promise<string[]> {
  return (await descendantsOf(server))
    .map(cmdline)
    .filter(isKernel)
    .map((argv) => argv[argv.indexOf("-f") + 1]!);
}

describe("eval on a shared Jupyter server", () => {
  it("two runs on the host share one server, each with its own folder, state and key folder; eval addresses no other kernel", async () => {
    const { runs, cell } = await twoRuns();
    expect(await cell(0, "import os\nsecret = 41\nprint(os.getcwd())")).toBe(runs[0]!.workdir);
    expect(await cell(1, "import os\nprint(os.getcwd(), 'secret' in globals())")).toBe(
      `${runs[1]!.workdir} False`,
    );
    const server = serverOf(runs[0]!)!;
    expect(serverOf(runs[1]!)).toBe(server);

    const keys = await connectionFiles(server);
    expect(keys).toHaveLength(2);
    expect(new Set(keys.map((k) => path.dirname(k))).size).toBe(2);

    // eval addresses no kernel but its run's own: an argument naming one is refused.
    const named = await call(await runs[1]!.link({ surface: "full" }), "eval", {
      code: "1",
      description: label,
      kernel: "any",
    });
    expect(named.isError).toBe(true);
    expect(textOf(named)).toBe(
      "Invalid arguments for eval:\n- unknown argument `kernel`\neval takes: code, description, language?, reset?. Nothing was done.",
    );
  });

  it("a run's dispose ends its kernels only; the server stops with its last run", async () => {
    const { runs, cell } = await twoRuns();
    await cell(0, "a = 1");
    expect(await cell(1, "b = 2\nb")).toBe("2");
    const server = serverOf(runs[0]!)!;
    const before = await connectionFiles(server);
    // Run 0's processes under the server (each carries run 0's marker): its kernel.
    const firsts = (await descendantsOf(server)).filter((pid) => runs[0]!.processes.owns(pid));
    expect(before).toHaveLength(2);
    expect(firsts.filter((pid) => isKernel(cmdline(pid)))).toHaveLength(1);
    await runs[0]!.dispose();
    for (const pid of firsts) expect(await isAlive(pid), `pid ${pid}`).toBe(false);
    expect(await isAlive(server)).toBe(true);
    expect(await cell(1, "b + 1")).toBe("3");
    expect(serverOf(runs[1]!)).toBe(server);
    await runs[1]!.dispose();
    expect(await isAlive(server)).toBe(false);
  });

  it("the server killed mid-cell: the cell in flight is lost, the other run is told at its next cell, and both go on on a new server", async () => {
    const { runs, cell } = await twoRuns();
    expect(await cell(0, "x = 41\nx + 1")).toBe("42");
    expect(await cell(1, "y = 1\ny")).toBe("1");
    const server = serverOf(runs[0]!)!;
    const inFlight = cell(0, "import time\ntime.sleep(60)");
    await new Promise((r) => setTimeout(r, 1500));
    process.kill(server, "SIGKILL");
    expect(await inFlight).toContain(
      "The kernel was lost during the cell: the Jupyter server exited. Its state (variables, imports) is lost",
    );
    for (let i = 0; i < 100 && serverOf(runs[1]!) !== undefined; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(await cell(1, "1 + 1")).toBe(
      "(a fresh kernel: the Jupyter server exited since the last cell, so earlier state is lost)\n2",
    );
    expect(await cell(0, "'x' in globals()")).toBe("False");
    const again = serverOf(runs[0]!);
    expect(again).not.toBe(server);
    expect(serverOf(runs[1]!)).toBe(again);
  });

  it.skipIf(!probeBubblewrap().ok && !process.env.CI)(
    "confined runs keep a server each, in their own sandbox, and never the host's shared one",
    async () => {
      const { runs, cell } = await twoRuns("preferred");
      expect(runs[0]!.processes.confinedPlace.kind, runs[0]!.unconfined).toBe("confined");
      expect(await cell(0, "1 + 1")).toBe("2");
      expect(await cell(1, "2 + 2")).toBe("4");
      const [a, b] = runs.map(serverOf);
      expect(a).toBeDefined();
      expect(a).not.toBe(b);
      // Each server is a process of its own run (it carries that run's marker), not the other's.
      for (const [i, pid] of [a!, b!].entries()) {
        expect(runs[i]!.processes.owns(pid)).toBe(true);
        expect(runs[1 - i]!.processes.owns(pid)).toBe(false);
      }
    },
  );
});

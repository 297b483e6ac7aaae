import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createRun, defineTool, ProgrammaticQuestionPort, type Run } from "../src/index.js";
import { RUN_MARKER } from "../src/proc/tracker.js";
import { descendantsOf, isAlive, processesMarked } from "../src/proc/tree.js";
import { call, textOf, workdirWith } from "./helpers.js";

/** A harness tool that starts a process tree through the run: two children, and a grandchild that daemonizes. */
function spawnerTool(pids: number[]) {
  return defineTool({
    name: "spawn_tree",
    title: "Spawn a tree",
    tier: "read",
    needs: [],
    parallelSafe: true,
    description: "starts sleeping processes",
    input: {},
    output: { pid: z.number() },
    run: async (_args, ctx) => {
      const tracked = ctx.processes.spawn("sleepers", "sh", [
        "-c",
        "sleep 300 & sleep 300 & (setsid sh -c 'sleep 300 & wait' &) ; echo ready; wait",
      ]);
      await new Promise<void>((resolve) => tracked.child.stdout?.once("data", () => resolve()));
      pids.push(tracked.pid);
      return { text: `started ${tracked.pid}`, structured: { pid: tracked.pid } };
    },
  });
}

async function allSleepersOf(run: Run, marker: number): Promise<number[]> {
  // The daemonized sleeper is no descendant of the shell any more; find it by the run's environment marker.
  const env = await readFile(`/proc/${marker}/environ`, "utf8");
  const token =
    env
      .split("\0")
      .find((kv) => kv.startsWith(`${RUN_MARKER}=`))
      ?.split("=")[1] ?? "";
  expect(token, "children carry the run marker").not.toBe("");
  expect(run.processes.running().map((p) => p.pid)).toContain(marker);
  return [...new Set([...(await descendantsOf(marker)), ...(await processesMarked(RUN_MARKER, token))])];
}

describe("run.dispose()", () => {
  it("ends every process tree the run started, including a daemonized grandchild", async () => {
    const workdir = await workdirWith();
    const run = await createRun({ workdir });
    const pids: number[] = [];
    run.registerTool(spawnerTool(pids));
    const client = await run.link({ surface: "readonly" });
    await call(client, "spawn_tree", {});
    await call(client, "spawn_tree", {});
    const all = (await Promise.all(pids.map((pid) => allSleepersOf(run, pid)))).flat();
    // Each tree: the shell, two sleeps, and the daemonized sh + its sleep.
    expect(all.length).toBeGreaterThanOrEqual(10);
    expect((await Promise.all(all.map(isAlive))).every(Boolean)).toBe(true);
    await run.dispose();
    expect((await Promise.all(all.map(isAlive))).some(Boolean)).toBe(false);
    expect(run.processes.running()).toEqual([]);
  });

  it("stops calls in flight, withdraws waiting cards, closes links and refuses what comes after", async () => {
    const workdir = await workdirWith();
    const port = new ProgrammaticQuestionPort({ connected: true });
    const withdrawn: string[] = [];
    port.onWithdrawn((card, reason) => withdrawn.push(`${card.id}:${reason}`));
    const run = await createRun({ workdir, conversationId: "c", questions: port });
    run.registerTool(
      defineTool({
        name: "forever",
        title: "forever",
        tier: "read",
        needs: [],
        parallelSafe: false,
        description: "waits for the run to end",
        input: {},
        output: {},
        run: (_args, ctx) =>
          new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))),
      }),
    );
    const client = await run.link({ surface: "plan" });
    let closed = false;
    const onclose = client.onclose;
    client.onclose = () => {
      closed = true;
      onclose?.();
    };
    const question = call(client, "ask_user", { question: "ok?", options: [{ label: "yes" }] }).catch(
      (e: Error) => e,
    );
    const forever = call(client, "forever", {}).catch((e: Error) => e);
    await expect.poll(() => port.pending().length).toBe(1);
    await run.dispose();
    // The link is closed with the run: the client sees its calls end rather than hang.
    expect(await question).toBeInstanceOf(Error);
    expect(await forever).toBeInstanceOf(Error);
    expect(withdrawn).toEqual(["q1:cancelled"]);
    expect(closed).toBe(true);
    await expect(run.link({ surface: "plan" })).rejects.toThrow("link: this run has been disposed");
    const after = await run.callTool("read", { path: "x" }, { surface: "plan" });
    expect(textOf(after)).toBe("This run has ended (disposed); its tools can no longer be called.");
    await run.dispose();
  });

  it("a bridged call in flight is told the run ended", async () => {
    const workdir = await workdirWith();
    const run = await createRun({ workdir });
    run.registerTool(
      defineTool({
        name: "wait",
        title: "wait",
        tier: "read",
        needs: [],
        parallelSafe: true,
        description: "waits",
        input: {},
        output: {},
        run: (_args, ctx) =>
          new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))),
      }),
    );
    const pending = run.callTool("wait", {}, { surface: "full" });
    await new Promise((r) => setTimeout(r, 10));
    await run.dispose();
    expect(textOf(await pending)).toBe("wait was stopped: the run ended (disposed) before it finished.");
  });

  /**
   * A host process that spawns through a ProcessTracker (`spawnLine`, code using `tracker`) and prints one pid; the
   * test SIGKILLs the host (no dispose) and the printed process must die anyway.
   */
  async function diesWithKilledHost(spawnLine: string): Promise<void> {
    const workdir = await workdirWith({
      "host.mts": [
        `import { ProcessTracker } from ${JSON.stringify(new URL("../src/proc/tracker.ts", import.meta.url).href)};`,
        "const tracker = new ProcessTracker();",
        spawnLine,
        "setInterval(() => {}, 1000);",
      ].join("\n"),
    });
    const host = spawn(
      process.execPath,
      ["--import", import.meta.resolve("tsx/esm"), path.join(workdir, "host.mts")],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const pid = await new Promise<number>((resolve) =>
      host.stdout.once("data", (d: Buffer) => resolve(Number(d.toString().trim()))),
    );
    expect(await isAlive(pid)).toBe(true);
    host.kill("SIGKILL");
    await expect.poll(() => isAlive(pid), { timeout: 10_000 }).toBe(false);
  }

  it("children die with the Node process even when it is killed with SIGKILL (no dispose)", async () => {
    await diesWithKilledHost(
      "console.log(tracker.spawn('sleeper', 'sleep', ['300'], { stdio: 'ignore' }).pid);",
    );
  });

  it("…and so do their descendants that left the tree (setsid), through the run's watchdog", async () => {
    // The child prints the pid of a grandchild in a session of its own: no parent-death signal reaches it.
    await diesWithKilledHost(
      "tracker.spawn('tree', 'sh', ['-c', 'setsid sleep 300 & echo $!; exec sleep 300'], { stdio: ['ignore', 'inherit', 'ignore'] });",
    );
  });

  it("a command that does not exist is an error, not a crash", async () => {
    const workdir = await workdirWith();
    const run = await createRun({ workdir });
    try {
      expect(() => run.processes.spawn("ghost", "/nonexistent/bin/ghost", [])).toThrow(
        "could not start ghost: `/nonexistent/bin/ghost` did not start (not found or not executable)",
      );
    } finally {
      await run.dispose();
    }
  });
});

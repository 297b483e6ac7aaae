/**
 * vibe_* with a real command backend (small shell programs given the brief on stdin). The model backend on each AI
 * SDK major: model-backend-ai5/ai6.test.ts.
 */

import { describe, expect, it } from "vitest";
import { commandBackend, createRun } from "../src/index.js";
import { descendantsOf, isAlive } from "../src/proc/tree.js";
import { preview } from "../src/vibe/answers.js";
import { call, textOf, track, treeOf, workdirWith } from "./helpers.js";

// fast: answers at once with what it was asked; good: works "forever" (a child sleep keeps it busy).
// Programs that only read: declared to honour every surface, so the plan links below may spawn them.
const everywhere = { surfaces: ["full", "plan", "readonly"] } as const;
const fast = commandBackend("sh", ["-c", 'brief=$(cat); echo "did: $brief" | tr "\\n" " "'], everywhere);
const slow = commandBackend("sh", ["-c", "cat > /dev/null; echo started; sleep 300 & wait"], everywhere);

async function vibeRun(maxWorkers = 4) {
  const workdir = await workdirWith();
  const run = track(await createRun({ workdir, lsp: false, vibe: { fast, good: slow, maxWorkers } }));
  const client = await run.link({ surface: "plan" });
  return { run, vibe: (name: string, args: Record<string, unknown> = {}) => call(client, name, args) };
}

describe("a worker's result in vibe_list", () => {
  it("is one line, cut at 300 characters saying how much was left out", () => {
    expect(preview("done:\n  all   good")).toBe("done: all good");
    expect(preview("x".repeat(1500))).toBe(
      `${"x".repeat(300)}… (+1,200 characters; vibe_wait gives it whole)`,
    );
  });
});

describe("vibe workers", () => {
  it("are registered only in vibe mode, as tier read (a plan surface sees them)", async () => {
    const workdir = await workdirWith();
    const off = track(await createRun({ workdir, lsp: false }));
    expect(off.tools("full").filter((t) => t.startsWith("vibe_"))).toEqual([]);
    const { run } = await vibeRun();
    expect(run.tools("plan").filter((t) => t.startsWith("vibe_"))).toEqual([
      "vibe_spawn",
      "vibe_send",
      "vibe_wait",
      "vibe_kill",
      "vibe_list",
    ]);
  });

  it("a backend that cannot start is said at spawn and leaves no worker to wait on (a wait on one never ended)", async () => {
    const workdir = await workdirWith();
    const missing = commandBackend("/nonexistent/worker-program", [], everywhere);
    const run = track(await createRun({ workdir, lsp: false, vibe: { fast: missing } }));
    const client = await run.link({ surface: "plan" });
    const spawned = await call(client, "vibe_spawn", { brief: "anything", label: "never" });
    expect(spawned.isError).toBe(true);
    expect(textOf(spawned)).toMatch(
      /^the command \(\/nonexistent\/worker-program\) backend did not start: could not start worker w1: .*not found or not executable.*\. Nothing is running\.$/,
    );
    expect((await call(client, "vibe_list", {})).structuredContent).toMatchObject({ workers: [] });
    const waited = await call(client, "vibe_wait", { worker_id: "w1", timeout_seconds: 5 });
    expect(waited.isError).toBe(true);
  });

  it("spawn returns an id at once; wait returns the result; list shows it", async () => {
    const { vibe } = await vibeRun();
    const spawned = await vibe("vibe_spawn", { brief: "rename foo to bar", label: "rename" });
    expect(textOf(spawned)).toBe('Started w1 "rename" (fast). vibe_wait w1 for its result.');
    const waited = await vibe("vibe_wait", { worker_id: "w1", timeout_seconds: 30 });
    expect(waited.structuredContent).toMatchObject({
      timed_out: false,
      worker: { id: "w1", status: "done", result: "did: rename foo to bar" },
    });
    expect(textOf(await vibe("vibe_list"))).toMatch(
      /^w1 "rename" \(fast\): done, \d+ s, last activity \d+ s ago — did: rename foo to bar$/,
    );
  });

  it("a worker's whole output is its result, even when the process exits before its pipe is read", async () => {
    // 60,000 bytes: most of it still in the pipe when the process exits (its buffer holds 64 KiB).
    const big = commandBackend(
      "sh",
      ["-c", "cat > /dev/null; head -c 60000 /dev/zero | tr '\\0' a"],
      everywhere,
    );
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, lsp: false, vibe: { fast: big, maxWorkers: 8 } }));
    const client = await run.link({ surface: "plan" });
    for (let i = 1; i <= 8; i++) await call(client, "vibe_spawn", { brief: "print", label: `p${i}` });
    for (let i = 1; i <= 8; i++) {
      const waited = await call(client, "vibe_wait", { worker_id: `w${i}`, timeout_seconds: 30 });
      const worker = (waited.structuredContent as { worker: { result?: string } }).worker;
      expect(worker.result?.length, `w${i}`).toBe(60_000);
    }
  });

  it("plan and readonly refuse a command backend not declared to honour them: nothing runs, nothing is written", async () => {
    const hostile = commandBackend("sh", ["-c", "echo PWNED > f; cat /etc/hostname"]);
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, lsp: false, vibe: { fast: hostile } }));
    for (const surface of ["plan", "readonly"] as const) {
      const client = await run.link({ surface });
      const result = await call(client, "vibe_spawn", { brief: "echo PWNED > f", label: "escape" });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        `vibe_spawn is refused on the ${surface} surface: the fast workers' backend (command (sh)) runs a program runbound cannot keep to ${surface}, and the harness did not declare that it honours ${surface}. Do the work with this surface's own tools, or ask for it to be done on a full surface.`,
      );
    }
    expect(run.processes.running().filter((p) => p.label.startsWith("worker"))).toEqual([]);
    expect(await treeOf(workdir)).toEqual({});
  });

  it("a declared backend learns its surface from RUNBOUND_SURFACE and {surface} in its arguments", async () => {
    const told = commandBackend("sh", ["-c", 'cat > /dev/null; echo "$RUNBOUND_SURFACE $0"', "{surface}"], {
      surfaces: ["plan"],
    });
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, lsp: false, vibe: { fast: told } }));
    const plan = await run.link({ surface: "plan" });
    await call(plan, "vibe_spawn", { brief: "which surface?", label: "told" });
    const waited = await call(plan, "vibe_wait", { worker_id: "w1", timeout_seconds: 30 });
    expect(waited.structuredContent).toMatchObject({ worker: { status: "done", result: "plan plan" } });
  });

  it("a surface reaches only its own workers and lower ones: plan cannot see, send to, wait on or kill a full worker", async () => {
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, lsp: false, vibe: { fast: slow } }));
    const [full, plan, readonly] = await Promise.all(
      (["full", "plan", "readonly"] as const).map((surface) => run.link({ surface })),
    );
    await call(full!, "vibe_spawn", { brief: "full's", label: "owned by full" });
    await call(plan!, "vibe_spawn", { brief: "plan's", label: "owned by plan" });
    await call(readonly!, "vibe_spawn", { brief: "readonly's", label: "owned by readonly" });
    const ids = async (client: typeof full) =>
      ((await call(client!, "vibe_list", {})).structuredContent as { workers: { id: string }[] }).workers.map(
        (w) => w.id,
      );
    expect(await ids(full)).toEqual(["w1", "w2", "w3"]);
    expect(await ids(plan)).toEqual(["w2", "w3"]);
    expect(await ids(readonly)).toEqual(["w3"]);
    for (const [tool, args] of [
      ["vibe_send", { worker_id: "w1", message: "now write the file" }],
      ["vibe_wait", { worker_id: "w1", timeout_seconds: 1 }],
      ["vibe_kill", { worker_id: "w1" }],
    ] as const) {
      expect(textOf(await call(plan!, tool, args)), tool).toBe(
        'There is no worker "w1" on this surface (w1 belongs to the full surface, which the plan surface cannot reach). Workers this surface sees: w2, w3.',
      );
    }
    expect(textOf(await call(readonly!, "vibe_kill", { worker_id: "w2" }))).toMatch(
      /^There is no worker "w2" on this surface \(w2 belongs to the plan surface/,
    );
    // The full worker kept running, untouched.
    expect(
      (
        (await call(full!, "vibe_list", {})).structuredContent as {
          workers: { status: string; attempts: number }[];
        }
      ).workers[0],
    ).toMatchObject({ status: "running", attempts: 1 });
    expect(textOf(await call(full!, "vibe_kill", { worker_id: "w2" }))).toBe("w2 is killed.");
  });

  it("wait has a hard deadline; kill stops the worker's whole process tree", async () => {
    const { vibe, run } = await vibeRun();
    await vibe("vibe_spawn", { brief: "think hard", label: "slow one", tier: "good" });
    const waited = await vibe("vibe_wait", { worker_id: "w1", timeout_seconds: 1 });
    expect(textOf(waited)).toMatch(
      /^w1 is still running after 1 s \(last activity \d+ s ago\)\. Wait again, send it a message, or kill it\.$/,
    );
    const shell = run.processes.running().find((p) => p.label === "worker w1")!;
    await expect.poll(async () => (await descendantsOf(shell.pid)).length).toBeGreaterThan(1);
    const tree = await descendantsOf(shell.pid);
    expect(textOf(await vibe("vibe_kill", { worker_id: "w1" }))).toBe("w1 is killed.");
    for (const pid of tree) expect(await isAlive(pid)).toBe(false);
  });

  it("send appends to the brief, restarts, and says what it interrupted", async () => {
    const { vibe } = await vibeRun();
    await vibe("vibe_spawn", { brief: "part one", label: "twice", tier: "good" });
    const sent = await vibe("vibe_send", { worker_id: "w1", message: "part two" });
    expect(textOf(sent)).toMatch(
      /^Restarted w1 with the added message \(attempt 1, running for \d+ s, was stopped\)\.$/,
    );
    expect(sent.structuredContent).toMatchObject({ worker: { attempts: 2, status: "running" } });
    await vibe("vibe_kill", { worker_id: "w1" });
    await vibe("vibe_spawn", { brief: "first", label: "fast one" });
    await vibe("vibe_wait", { worker_id: "w2", timeout_seconds: 30 });
    await vibe("vibe_send", { worker_id: "w2", message: "second" });
    const again = await vibe("vibe_wait", { worker_id: "w2", timeout_seconds: 30 });
    expect(again.structuredContent).toMatchObject({
      worker: { status: "done", result: "did: first  second" },
    });
  });

  it("refuses past the concurrency limit, and an unknown id, saying what to do", async () => {
    const { vibe } = await vibeRun(2);
    await vibe("vibe_spawn", { brief: "a", label: "one", tier: "good" });
    await vibe("vibe_spawn", { brief: "b", label: "two", tier: "good" });
    expect(textOf(await vibe("vibe_spawn", { brief: "c", label: "three" }))).toBe(
      '2 workers are running, the limit of this run (w1 "one", w2 "two"). Wait for one (vibe_wait) or stop one (vibe_kill), then spawn.',
    );
    expect(textOf(await vibe("vibe_wait", { worker_id: "w9" }))).toBe(
      'There is no worker "w9". Workers this surface sees: w1, w2.',
    );
  });

  it("workers die with the run: nothing is left running", async () => {
    const workdir = await workdirWith();
    const run = await createRun({ workdir, lsp: false, vibe: { fast: slow } });
    const client = await run.link({ surface: "full" });
    await call(client, "vibe_spawn", { brief: "x", label: "doomed" });
    const shell = run.processes.running().find((p) => p.label === "worker w1")!;
    await expect.poll(async () => (await descendantsOf(shell.pid)).length).toBeGreaterThan(1);
    const tree = await descendantsOf(shell.pid);
    await run.dispose();
    for (const pid of tree) expect(await isAlive(pid)).toBe(false);
  });
});

/**
 * runbound's Node adapter follows the program's worker threads (worker_threads): each is a thread of the session,
 * set up before its first line runs, so a breakpoint in a worker's file stops it there; the main thread and a
 * worker stop apart (Node stops one thread at a time), each with its own frames and values; an exception a worker
 * throws stops that worker. Node child processes the program forks or spawns are threads of the session the same
 * way, and the program ends as it would without the debugger.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, type Run } from "../src/index.js";
import type { RunLink } from "../src/run-link.js";
import { call, suiteWorkdir, textOf } from "./helpers.js";

const FILES = {
  "package.json": '{ "name": "node-workers", "private": true }\n',
  "main.js": [
    'const { Worker } = require("node:worker_threads");',
    'const worker = new Worker(require("node:path").join(__dirname, "square.js"), { workerData: 6 });',
    'worker.on("message", (value) => {',
    "  const got = value;",
    '  console.log("got " + got);',
    "});",
    "",
  ].join("\n"),
  "square.js": [
    'const { parentPort, workerData } = require("node:worker_threads");',
    "function square(n) {",
    "  const result = n * n;",
    "  return result;",
    "}",
    "parentPort.postMessage(square(workerData));",
    "",
  ].join("\n"),
  "spawns-boom.js": [
    'const { Worker } = require("node:worker_threads");',
    'const worker = new Worker(require("node:path").join(__dirname, "boom.js"));',
    'worker.on("error", (error) => console.log("worker failed: " + error.message));',
    "",
  ].join("\n"),
  "parent.js": [
    'const { fork } = require("node:child_process");',
    'const child = fork(require("node:path").join(__dirname, "cube.js"), ["7"]);',
    'child.on("message", (value) => {',
    "  const got = value;",
    '  console.log("parent got " + got);',
    "});",
    "",
  ].join("\n"),
  "cube.js": [
    "function cube(n) {",
    "  const result = n * n * n;",
    "  return result;",
    "}",
    "process.send(cube(Number(process.argv[2])), () => process.exit(0));",
    "",
  ].join("\n"),
  "boom.js": ["function fail() {", '  throw new RangeError("no worker stock");', "}", "fail();", ""].join(
    "\n",
  ),
};

describe("debug: a Node program's worker threads are threads of the session", () => {
  let run: Run;
  let client: RunLink;
  let remove: () => Promise<void>;
  const debug = async (args: Record<string, unknown>) => textOf(await call(client, "debug", args));

  beforeAll(async () => {
    let dir: string;
    ({ dir, remove } = await suiteWorkdir(FILES));
    run = await createRun({ workdir: dir, conversationId: "node-workers", approver: "always", lsp: false });
    client = await run.link({ surface: "full" });
  });
  afterAll(async () => {
    await run?.dispose();
    await remove?.();
  });

  it("a breakpoint in a worker's file stops the worker; then one in the main thread stops it, apart", async () => {
    await debug({ operation: "breakpoints", file: "square.js", lines: [3] });
    await debug({ operation: "breakpoints", file: "main.js", lines: [5] });
    try {
      const first = await call(client, "debug", { operation: "launch", program: "main.js" });
      expect(textOf(first)).toMatch(/^Breakpoints: square\.js:3 verified; main\.js:5 verified$/m);
      expect(textOf(first)).toMatch(/^Stopped \(breakpoint\) in thread 2 at square\.js:3 in square$/m);
      expect(first.structuredContent).toMatchObject({
        thread_id: 2,
        locals: expect.arrayContaining([expect.objectContaining({ name: "n", value: "6" })]),
      });
      expect(await debug({ operation: "threads" })).toBe("  1  main\n  2  worker 1 (square.js)");
      expect(await debug({ operation: "stack" })).toMatch(
        /^ {2}#\d+ square \(square\.js:3\)\n {2}#\d+ <anonymous> \(square\.js:6\)$/m,
      );
      expect(await debug({ operation: "evaluate", expression: "n * 7" })).toBe("n * 7 = 42 (number)");
      expect(await debug({ operation: "step_over" })).toMatch(
        /^Stopped \(step\) in thread 2 at square\.js:4 in square$/m,
      );
      // The worker posts its answer; the main thread's handler stops on its own thread.
      const main = await call(client, "debug", { operation: "continue" });
      expect(textOf(main)).toMatch(/^Stopped \(breakpoint\) in thread 1 at main\.js:5 /m);
      expect(main.structuredContent).toMatchObject({
        thread_id: 1,
        locals: expect.arrayContaining([expect.objectContaining({ name: "got", value: "36" })]),
      });
      expect(await debug({ operation: "continue" })).toMatch(/^The program exited with code 0/);
      await expect.poll(() => debug({ operation: "output" })).toMatch(/^got 36$/m);
    } finally {
      await debug({ operation: "terminate" });
      await debug({ operation: "breakpoints", file: "square.js", lines: [] });
      await debug({ operation: "breakpoints", file: "main.js", lines: [] });
    }
  });

  it("an exception a worker throws stops that worker, with its message (the caught-exceptions filter: Node catches what a worker throws, to hand it to the parent)", async () => {
    await debug({ operation: "breakpoints", exception_breakpoints: ["all"] });
    try {
      const stop = await debug({ operation: "launch", program: "spawns-boom.js" });
      expect(stop).toMatch(/^Stopped \(exception\) in thread 2 at boom\.js:2 in fail$/m);
      expect(stop).toContain("RangeError: no worker stock");
      expect(await debug({ operation: "continue" })).toMatch(/^The program exited with code 0/);
      await expect.poll(() => debug({ operation: "output" })).toMatch(/^worker failed: no worker stock$/m);
    } finally {
      await debug({ operation: "terminate" });
      await debug({ operation: "breakpoints", exception_breakpoints: [] });
    }
  });

  it("a child process the program forks is a thread too: its breakpoint stops it, and the program ends as without", async () => {
    await debug({ operation: "breakpoints", file: "cube.js", lines: [2] });
    try {
      const stop = await call(client, "debug", { operation: "launch", program: "parent.js" });
      expect(textOf(stop)).toMatch(/^Breakpoints: cube\.js:2 verified$/m);
      expect(textOf(stop)).toMatch(/^Stopped \(breakpoint\) in thread 2 at cube\.js:2 in cube$/m);
      expect(stop.structuredContent).toMatchObject({
        locals: expect.arrayContaining([expect.objectContaining({ name: "n", value: "7" })]),
      });
      expect(await debug({ operation: "threads" })).toMatch(
        /^ {2}1 {2}main\n {2}2 {2}process \d+ \(cube\.js\)$/,
      );
      expect(await debug({ operation: "evaluate", expression: "n * 2" })).toBe("n * 2 = 14 (number)");
      expect(await debug({ operation: "continue" })).toMatch(/^The program exited with code 0/);
      await expect.poll(() => debug({ operation: "output" })).toMatch(/^parent got 343$/m);
    } finally {
      await debug({ operation: "terminate" });
      await debug({ operation: "breakpoints", file: "cube.js", lines: [] });
    }
  });
});

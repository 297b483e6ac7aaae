/**
 * runbound's Node adapter beyond launch: joining programs it did not start — by port (`node --inspect`), on the host
 * and in the run's sandbox (a cell started it); by pid (its inspector opened with SIGUSR1, closed again on leaving);
 * a Node web server on the port refused as what it is; the program's own end ending the session — and steps that
 * never stop in Node's own modules (node:internal/…), which the stack names without reading them.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isNodeInspector } from "../src/dap/node/open-inspector.js";
import { createRun, type Run } from "../src/index.js";
import type { RunLink } from "../src/run-link.js";
import { call, suiteWorkdir, textOf } from "./helpers.js";

const FILES = {
  "package.json": '{ "name": "node-attach", "private": true }\n',
  "main.js": [
    "function later() {",
    '  const lazy = require("./lazy.js");',
    "  return lazy.twice(21);",
    "}",
    "const found = later();",
    'console.log("found " + found);',
    "",
  ].join("\n"),
  "lazy.js": ["exports.twice = (n) => {", "  const doubled = n * 2;", "  return doubled;", "};", ""].join(
    "\n",
  ),
  // A long-running program: a tick every 100 ms, each logged.
  "server.js": [
    "let count = 0;",
    "function tick() {",
    "  count += 1;",
    '  const label = "tick " + count;',
    "  console.log(label);",
    "}",
    "setInterval(tick, 100);",
    "",
  ].join("\n"),
  // Ends by itself after ~3 s.
  "short.js": [
    "let n = 0;",
    "const timer = setInterval(() => {",
    "  n += 1;",
    "  if (n >= 30) clearInterval(timer);",
    "}, 100);",
    "",
  ].join("\n"),
  // A Node program listening on a port, but as a web server.
  "web.js": [
    'const http = require("node:http");',
    'const server = http.createServer((req, res) => res.end("hello"));',
    'server.listen(0, "127.0.0.1", () => console.log("port " + server.address().port));',
    "",
  ].join("\n"),
};

describe("debug: Node programs runbound did not start, and Node's own frames", () => {
  let run: Run;
  let client: RunLink;
  let dir: string;
  let remove: () => Promise<void>;
  const programs: ChildProcess[] = [];
  const debug = async (args: Record<string, unknown>) => textOf(await call(client, "debug", args));

  /** A program of the test's own on the host, and the first line of its output that `first` matches. */
  async function start(args: string[], first: RegExp, from: "stdout" | "stderr") {
    const child = spawn(process.execPath, args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    programs.push(child);
    const line = await new Promise<RegExpExecArray>((resolve, reject) => {
      let seen = "";
      child[from]!.on("data", (d: Buffer) => {
        seen += d.toString();
        const found = first.exec(seen);
        if (found) resolve(found);
      });
      child.once("exit", () => reject(new Error(`${args.join(" ")} ended first: ${seen}`)));
    });
    return { child, line };
  }

  beforeAll(async () => {
    ({ dir, remove } = await suiteWorkdir(FILES));
    run = await createRun({ workdir: dir, conversationId: "node-attach", approver: "always", lsp: false });
    client = await run.link({ surface: "full" });
  });
  afterEach(async () => {
    await debug({ operation: "terminate" });
    for (const file of ["main.js", "server.js", "short.js"])
      await debug({ operation: "breakpoints", file, lines: [] });
    for (const child of programs.splice(0)) child.kill("SIGKILL");
  });
  afterAll(async () => {
    await run?.dispose();
    await remove?.();
  });

  it("a step into require() or off a module's end never stops in node:internal; the stack names those frames", async () => {
    await debug({ operation: "breakpoints", file: "main.js", lines: [2] });
    expect(await debug({ operation: "launch", program: "main.js" })).toMatch(
      /^Stopped \(breakpoint\) in thread 1 at main\.js:2 in later$/m,
    );
    // Into require: through Node's loader (compiled at startup, which V8 cannot skip by itself) and back out.
    const into = await debug({ operation: "step_in" });
    expect(into).toMatch(/^Stopped \(step\) in thread 1 at (main|lazy)\.js:\d+ /m);
    expect(into).not.toMatch(/First frame in the workdir/);
    const stack = await debug({ operation: "stack" });
    expect(stack).toMatch(/^ {2}#\d+ Module\._compile \(node:internal\/modules\/cjs\/loader:\d+\)$/m);
    // Whatever the steps meet, every stop is in the program's files, until it ends.
    let answer = "";
    for (let i = 0; i < 12 && !/exited/.test(answer); i++) {
      answer = await debug({ operation: i % 3 === 0 ? "step_in" : "step_over" });
      if (!/exited/.test(answer))
        expect(answer).toMatch(/^Stopped \(step\) in thread 1 at (main|lazy)\.js:\d+ /m);
    }
    expect(answer).toMatch(/^The program exited with code 0/);
    await expect.poll(() => debug({ operation: "output" })).toMatch(/^found 42$/m);
  });

  it("attach by port: a program under `node --inspect` stops at a breakpoint set before, and keeps running after", async () => {
    const { child, line } = await start(
      ["--inspect=127.0.0.1:0", "server.js"],
      /Debugger listening on ws:\/\/127\.0\.0\.1:(\d+)\//,
      "stderr",
    );
    const port = Number(line[1]);
    await debug({ operation: "breakpoints", file: "server.js", lines: [5] });
    const attached = await call(client, "debug", { operation: "attach", port });
    expect(textOf(attached)).toMatch(
      new RegExp(
        `^Attached to 127\\.0\\.0\\.1:${port} under node, stopped, .* joined to the program's own inspector \\(pid ${child.pid}\\)\\.$`,
        "m",
      ),
    );
    expect(textOf(attached)).toContain("The program runs on the host, outside the run's sandbox");
    expect(attached.structuredContent).toMatchObject({
      state: "stopped",
      reason: "breakpoint",
      location: { path: "server.js", line: 5, function: "tick" },
    });
    const count = Number(
      /count \* 10 = (\d+)/.exec(await debug({ operation: "evaluate", expression: "count * 10" }))?.[1],
    );
    expect(count).toBeGreaterThan(0);
    expect(await debug({ operation: "continue" })).toMatch(
      /^Stopped \(breakpoint\) .* at server\.js:5 in tick$/m,
    );
    // Its console comes through the inspector (runbound does not hold its stdout).
    expect(await debug({ operation: "output" })).toMatch(/^tick \d+$/m);
    expect(await debug({ operation: "terminate" })).toMatch(
      /^Detached from 127\.0\.0\.1:\d+ under node, .*; the program keeps running \(runbound did not start it\)\.$/,
    );
    // Left running, and its inspector is its own: still open.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(child.exitCode).toBeNull();
    expect(await isNodeInspector("127.0.0.1", port)).toBe(true);
  });

  it("attach by pid: the inspector runbound opens with SIGUSR1 is closed again when it leaves; the program runs on", async () => {
    // --inspect-port=0: the inspector a signal opens takes a free port (9229 could be another program's).
    const { child } = await start(["--inspect-port=0", "server.js"], /tick 1\n/, "stdout");
    await debug({ operation: "breakpoints", file: "server.js", lines: [4] });
    const attached = await debug({ operation: "attach", pid: child.pid });
    const port = Number(/opened by runbound at 127\.0\.0\.1:(\d+)/.exec(attached)?.[1]);
    expect(attached).toMatch(/^Attached to `.*server\.js` \(pid \d+\) under node, stopped/);
    expect(port).toBeGreaterThan(0);
    expect(attached).toMatch(/^Stopped \(breakpoint\) in thread 1 at server\.js:4 in tick$/m);
    expect(await isNodeInspector("127.0.0.1", port)).toBe(true);
    expect(await debug({ operation: "terminate" })).toMatch(/^Detached from .*; the program keeps running/);
    await expect.poll(() => isNodeInspector("127.0.0.1", port), { timeout: 5000 }).toBe(false);
    expect(child.exitCode).toBeNull();
  });

  it("the attached program's own end ends the session, said as such", async () => {
    const { line } = await start(
      ["--inspect=127.0.0.1:0", "short.js"],
      /Debugger listening on ws:\/\/127\.0\.0\.1:(\d+)\//,
      "stderr",
    );
    await debug({ operation: "breakpoints", file: "short.js", lines: [3] });
    expect(await debug({ operation: "attach", port: Number(line[1]) })).toMatch(/^Stopped \(breakpoint\)/m);
    await debug({ operation: "breakpoints", file: "short.js", lines: [] });
    expect(await debug({ operation: "continue" })).toMatch(/^The program exited\./);
    expect(await debug({ operation: "terminate" })).toMatch(
      /^Ended the session of .*: the program had ended by itself\.$/,
    );
  });

  it("a Node web server on the port is not an inspector: refused as what it is, with how to start one", async () => {
    const { child, line } = await start(["web.js"], /port (\d+)/, "stdout");
    const answer = await debug({ operation: "attach", port: Number(line[1]) });
    expect(answer).toMatch(
      new RegExp(
        `^127\\.0\\.0\\.1:${line[1]} is held by \`.*web\\.js\` \\(pid ${child.pid}\\), a Node program, but not its inspector`,
      ),
    );
    expect(answer).toContain("`node --inspect=127.0.0.1:PORT app.js`");
    expect(await debug({ operation: "status" })).toMatch(/^No debug session is running/);
  });

  it("a program a cell started under --inspect in the run's sandbox: joined through the run's relay, not the host", async () => {
    const started = textOf(
      await call(client, "eval", {
        code: [
          "import re, subprocess",
          `node = subprocess.Popen([${JSON.stringify(process.execPath)}, "--inspect=127.0.0.1:0", "server.js"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)`,
          "line = node.stderr.readline()",
          'print(re.search(r"127\\.0\\.0\\.1:(\\d+)/", line).group(1))',
        ].join("\n"),
        description: "start a Node program under its inspector",
      }),
    );
    const port = Number(started.trim());
    expect(port).toBeGreaterThan(0);
    await debug({ operation: "breakpoints", file: "server.js", lines: [5] });
    const attached = await debug({ operation: "attach", port });
    expect(attached).toMatch(new RegExp(`^Attached to 127\\.0\\.0\\.1:${port} under node`));
    expect(attached).not.toContain("outside the run's sandbox");
    expect(attached).toMatch(/^Stopped \(breakpoint\) in thread 1 at server\.js:5 in tick$/m);
    expect(await debug({ operation: "evaluate", expression: "count > 0" })).toBe(
      "count > 0 = true (boolean)",
    );
    await debug({ operation: "terminate" });
    await call(client, "eval", { code: "node.kill()", description: "stop it" });
  });
});

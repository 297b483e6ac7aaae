/** debug against real adapters: debugpy (Python), delve (Go), lldb (a C program built with gcc -g), runbound's Node adapter (JavaScript, and TypeScript through tsx). */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BreakpointBook } from "../src/dap/breakpoints.js";
import type { DebugSession } from "../src/dap/session.js";
import { describeStop } from "../src/dap/stop-text.js";
import { createRun, type Run } from "../src/index.js";
import { probeBubblewrap } from "../src/proc/bubblewrap.js";
import { isAlive } from "../src/proc/tree.js";
import type { ToolContext } from "../src/registry.js";
import type { RunLink } from "../src/run-link.js";
import { onPath } from "../src/setup/components.mjs";
import type { ToolResult } from "../src/tool-result.js";
import { debugTool } from "../src/tools/debug.js";
import { call, HOME, scriptedSession, textOf, track, workdirWith, workspaceCopy } from "./helpers.js";

/** A breakpoint book with one line breakpoint, for a session driven directly. */
function book(file: string, line: number): BreakpointBook {
  const b = new BreakpointBook();
  b.lines.set(file, [{ line }]);
  return b;
}

interface Case {
  adapter: string;
  program: string;
  file: string;
  /** A line that calls a function, the line inside it after stepping in, and a variable there. */
  callLine: number;
  insideLine: number;
  local: string;
  expression: [string, string];
  /** An expression whose value is longer than the 400 characters an answer shows. */
  longExpression: string;
  output: string;
}

const CASES: Case[] = [
  {
    adapter: "debugpy",
    program: "python/inventory/stock.py",
    file: "python/inventory/stock.py",
    callLine: 32,
    insideLine: 18,
    local: "count = 3",
    expression: ["count * 2", "6"],
    longExpression: "'x' * 1000",
    output: "value 5000",
  },
  {
    adapter: "delve",
    program: "go",
    file: "go/main.go",
    callLine: 7,
    insideLine: 20,
    local: "count = 3",
    expression: ["count * 2", "6"],
    longExpression: `"${"x".repeat(600)}"`,
    output: "value 5000",
  },
  {
    adapter: "lldb",
    program: "c/stock",
    file: "c/stock.c",
    callLine: 35,
    insideLine: 16,
    local: "count = 3",
    expression: ["count * 2", "6"],
    longExpression: `"${"x".repeat(600)}"`,
    output: "value 5000",
  },
  {
    adapter: "node",
    program: "js/stock.js",
    file: "js/stock.js",
    callLine: 15,
    insideLine: 4,
    local: "count = 3",
    expression: ["count * 2", "6"],
    longExpression: '"x".repeat(1000)',
    output: "value 5000",
  },
  {
    // TypeScript through tsx (runbound's home has it): the lines are the .ts file's, mapped back from what runs.
    adapter: "node",
    program: "ts/src/main.ts",
    file: "ts/src/main.ts",
    callLine: 4,
    insideLine: 12,
    local: "count = 3",
    expression: ["count * 2", "6"],
    longExpression: '"x".repeat(1000)',
    output: "value 5000",
  },
];

/** The C program's stock, in JavaScript (CommonJS), for the Node adapter. */
const STOCK_JS = `const stock = new Map();

function add(sku, priceCents, count) {
  const have = stock.get(sku);
  if (have) have.count += count;
  else stock.set(sku, { priceCents, count });
}

function valueCents() {
  let total = 0;
  for (const item of stock.values()) total += item.priceCents * item.count;
  return total;
}

add("A1", 2500, 3);
add("A1", 2500, -1);
console.log("value", valueCents());
`;

for (const c of CASES) {
  describe(`debug with ${c.adapter} (${c.program})`, () => {
    let run: Run;
    let client: RunLink;
    let remove: () => Promise<void>;
    const debug = (args: Record<string, unknown>) => call(client, "debug", args);

    beforeAll(async () => {
      const copy = await workspaceCopy();
      remove = copy.remove;
      execFileSync("gcc", [
        "-g",
        "-O0",
        "-o",
        path.join(copy.dir, "c/stock"),
        path.join(copy.dir, "c/stock.c"),
      ]);
      await mkdir(path.join(copy.dir, "js"));
      await writeFile(path.join(copy.dir, "js/package.json"), '{ "name": "stock-js" }\n');
      await writeFile(path.join(copy.dir, "js/stock.js"), STOCK_JS);
      run = await createRun({ workdir: copy.dir, conversationId: "dbg", approver: "always", lsp: false });
      client = await run.link({ surface: "full" });
    });
    afterAll(async () => {
      await run?.dispose();
      await remove?.();
    });

    it("stops at a breakpoint set before launch, and answers with the line, frames and locals in one call", async () => {
      const set = await debug({ operation: "breakpoints", file: c.file, lines: [c.callLine] });
      expect(textOf(set)).toContain("(set before launch)");
      const launched = await debug({ operation: "launch", program: c.program });
      const text = textOf(launched);
      expect(launched.isError, text).toBeFalsy();
      expect(text).toContain(`Breakpoints: ${c.file}:${c.callLine} verified`);
      expect(text).toMatch(
        new RegExp(`Stopped \\(breakpoint\\) in thread \\d+ at ${c.file}:${c.callLine} in `),
      );
      expect(launched.structuredContent).toMatchObject({
        state: "stopped",
        reason: "breakpoint",
        location: { path: c.file, line: c.callLine },
      });
    });

    it("a second launch is refused with the running session's description", async () => {
      const again = await debug({ operation: "launch", program: c.program });
      expect(textOf(again)).toMatch(
        /^A debug session is already running \(.* under .*, stopped, \d+ min left of its TTL\)\. Terminate it first; it is never replaced silently\./,
      );
    });

    it("step_in enters the call, shows its locals; stack, scopes, variables and evaluate work there", async () => {
      const inside = await debug({ operation: "step_in" });
      expect(inside.structuredContent).toMatchObject({ state: "stopped", location: { line: c.insideLine } });
      expect(textOf(inside)).toContain(c.local);
      const stack = await debug({ operation: "stack" });
      const frames = (stack.structuredContent as { frames: { id: number; line?: number }[] }).frames;
      expect(frames[0]?.line).toBe(c.insideLine);
      expect(frames[1]?.line).toBe(c.callLine);
      const scopes = await debug({ operation: "scopes", frame_id: frames[0]!.id });
      const reference = (scopes.structuredContent as { scopes: { reference: number }[] }).scopes[0]!
        .reference;
      const variables = await debug({ operation: "variables", reference });
      expect(textOf(variables)).toMatch(/count = 3/);
      // A thread the adapter does not know: refused, and the session still knows it is stopped.
      const refused = await debug({ operation: "step_over", thread_id: 987654 });
      // debugpy and lldb refuse the request; delve takes it and stops for "error", saying why.
      expect(textOf(refused)).toMatch(
        /( refused next for `thread_id` 987654: .*\. The program is still stopped; threads lists the thread ids\.$|^Stopped \(error\) [\s\S]*\nError: unknown goroutine 987654\n)/,
      );
      expect((await debug({ operation: "status" })).structuredContent).toMatchObject({ state: "stopped" });
      // Whatever an adapter answers for an unknown thread or frame, it is its answer, never "a fault of runbound".
      for (const args of [
        { operation: "stack", thread_id: 987654 },
        { operation: "scopes", frame_id: 987654 },
        { operation: "threads" },
      ])
        expect(textOf(await debug(args))).not.toMatch(/fault of runbound|^$/);
      // A long value is cut at 400 characters and says how long it was.
      const long = textOf(await debug({ operation: "evaluate", expression: c.longExpression }));
      expect(long).toMatch(/… \(\d{3,} characters\)/);
      // A reference the adapter does not know: an answer that says so, never an empty one.
      expect(textOf(await debug({ operation: "variables", reference: 987654 }))).toMatch(/\S/);
      const evaluated = await debug({ operation: "evaluate", expression: c.expression[0] });
      expect(textOf(evaluated)).toMatch(
        new RegExp(`^${c.expression[0].replace("*", "\\*")} = ${c.expression[1]}`),
      );
    });

    it("step_over stays in the frame; step_out returns to the caller; no event waiter is left behind", async () => {
      const over = await debug({ operation: "step_over" });
      expect(over.structuredContent).toMatchObject({ state: "stopped" });
      const line = (over.structuredContent as { location: { line: number } }).location.line;
      expect(line).toBeGreaterThan(c.insideLine);
      const out = await debug({ operation: "step_out" });
      expect(out.structuredContent).toMatchObject({ state: "stopped", location: { path: c.file } });
      expect((out.structuredContent as { location: { line: number } }).location.line).toBeGreaterThanOrEqual(
        c.callLine,
      );
      // Each stop waits on one waiter for "stopped" or "terminated"; none is left behind with its timer.
      expect(run.resource("debug")!.running!.waiting).toBe(0);
    });

    it("continue runs to the end; output has the program's stdout; terminate leaves nothing running", async () => {
      await debug({ operation: "breakpoints", file: c.file, lines: [] });
      const done = await debug({ operation: "continue" });
      expect(done.structuredContent).toMatchObject({ state: "exited" });
      await expect.poll(async () => textOf(await debug({ operation: "output" }))).toContain(c.output);
      // delve's own "Building …" line came as the program's stdout, by event as well as on its own stdout.
      expect(textOf(await debug({ operation: "output" }))).not.toMatch(/^Building /m);
      const pid = run.resource("debug")!.running!.pid!;
      expect(textOf(await debug({ operation: "terminate" }))).toMatch(
        /^Terminated [^,]* under \w+, exited; the program and the adapter are gone\.$/,
      );
      expect(await isAlive(pid)).toBe(false);
      expect(textOf(await debug({ operation: "stack" }))).toMatch(
        /^The debug session \(.*\) was terminated\. stack needs one: launch a program first/,
      );
    });
  });
}

describe("debug sessions: TTL, crashes, interpreters, bad input", () => {
  it("a session past its TTL is terminated and the next call says so", async () => {
    const copy = await workspaceCopy();
    const run = track(
      await createRun({
        workdir: copy.dir,
        conversationId: "ttl",
        approver: "always",
        lsp: false,
        // Long enough that a launch on a loaded machine (a CI clone beside the suite) finishes before it expires.
        debug: { ttlSeconds: 5 },
      }),
    );
    try {
      const client = await run.link({ surface: "full" });
      await launchStockWithBreakpoint(client);
      const pid = run.resource("debug")!.running!.pid!;
      await expect
        .poll(async () => textOf(await call(client, "debug", { operation: "stack" })), { timeout: 10_000 })
        .toMatch(/expired after its 5 s TTL and was terminated/);
      expect(await isAlive(pid)).toBe(false);
    } finally {
      await copy.remove();
    }
  });

  it("the source line of a stop is read again when its file changes while the program is stopped", async () => {
    const copy = await workspaceCopy();
    const run = track(
      await createRun({ workdir: copy.dir, conversationId: "src", approver: "always", lsp: false }),
    );
    try {
      const client = await run.link({ surface: "full" });
      await launchStockWithBreakpoint(client);
      const sourceOf = async () =>
        (
          (await call(client, "debug", { operation: "status" })).structuredContent as {
            location?: { line: number; source: string };
          }
        ).location;
      expect(await sourceOf()).toMatchObject({ line: 32, source: 'stock.add(Item("A1", "lamp", 2500), 3)' });
      const file = path.join(copy.dir, "python/inventory/stock.py");
      const lines = (await readFile(file, "utf8")).split("\n");
      lines[31] = "    stock.add(Item('B2', 'desk', 9900), 1)  # edited while stopped";
      await writeFile(file, lines.join("\n"));
      expect(await sourceOf()).toMatchObject({
        line: 32,
        source: "stock.add(Item('B2', 'desk', 9900), 1)  # edited while stopped",
      });
    } finally {
      await copy.remove();
    }
  });

  it("a stop on a very long line shows it clipped to a snippet; a long local's value says how much was cut", async () => {
    const long = `total = ${Array.from({ length: 200 }, (_, i) => i).join(" + ")}`;
    const workdir = await workdirWith({
      "pyproject.toml": '[project]\nname = "long"\n',
      "long.py": `x = "a" * 100\n${long}\nprint(total)\n`,
    });
    const run = track(await createRun({ workdir, conversationId: "long", approver: "always", lsp: false }));
    const client = await run.link({ surface: "full" });
    await call(client, "debug", { operation: "breakpoints", file: "long.py", lines: [2] });
    const stop = await call(client, "debug", { operation: "launch", program: "long.py" });
    expect(stop.isError, textOf(stop)).toBeFalsy();
    const source = (stop.structuredContent as { location?: { line: number; source: string } }).location;
    expect(source?.line).toBe(2);
    expect(source?.source).toBe(`${long.slice(0, 100)}…`);
    expect(textOf(stop)).toContain(`\n  2  ${long.slice(0, 100)}…\n`);
    expect(textOf(stop)).toContain(`x = '${"a".repeat(59)}… (+42 characters)`);
    await call(client, "debug", { operation: "terminate" });
  });

  it("variables and output say whether they are complete: children past the limit, long values, early output dropped", async () => {
    const workdir = await workdirWith({
      "pyproject.toml": '[project]\nname = "lists"\n',
      "lists.py": [
        "import sys",
        "items = list(range(120))",
        "pair = ['short', 'b' * 1000]",
        "sys.stdout.write('early line\\n' + 'o' * 100_000 + '\\nlast line\\n')",
        "sys.stdout.flush()",
        "done = True",
        "",
      ].join("\n"),
    });
    const run = track(await createRun({ workdir, conversationId: "lists", approver: "always", lsp: false }));
    const client = await run.link({ surface: "full" });
    await call(client, "debug", { operation: "breakpoints", file: "lists.py", lines: [6] });
    const stop = await call(client, "debug", { operation: "launch", program: "lists.py" });
    expect(stop.isError, textOf(stop)).toBeFalsy();
    const locals = (stop.structuredContent as { locals: { name: string; reference?: number }[] }).locals;
    const reference = (name: string) => locals.find((l) => l.name === name)?.reference;
    const items = await call(client, "debug", { operation: "variables", reference: reference("items") });
    expect(textOf(items)).toMatch(/\nIncomplete: showing 50 of \d+ children\.$/);
    expect(items.structuredContent).toMatchObject({ complete: false });
    const pair = await call(client, "debug", { operation: "variables", reference: reference("pair") });
    expect(textOf(pair)).toMatch(
      /\nIncomplete: 1 value cut at 400 characters \(its length said\); evaluate an expression for a part of it\.$/,
    );
    await expect
      .poll(async () => textOf(await call(client, "debug", { operation: "output" })), { timeout: 10_000 })
      .toContain("last line");
    const output = await call(client, "debug", { operation: "output" });
    expect(textOf(output)).toMatch(/^\(\d+ earlier bytes dropped\)\n/);
    expect(textOf(output)).toMatch(
      /\nIncomplete: the \d+ earliest bytes of output were dropped \(the newest are kept\)\.$/,
    );
    expect(output.structuredContent).toMatchObject({ complete: false });
    const whole = await call(client, "debug", { operation: "evaluate", expression: "len(items)" });
    expect(textOf(whole)).toBe("len(items) = 120 (int)");
    await call(client, "debug", { operation: "terminate" });
  });

  it("an adapter that dies mid-session is reported, and a new launch works", async () => {
    const copy = await workspaceCopy();
    const run = track(
      await createRun({ workdir: copy.dir, conversationId: "crash", approver: "always", lsp: false }),
    );
    try {
      const client = await run.link({ surface: "full" });
      await launchStockWithBreakpoint(client);
      process.kill(run.resource("debug")!.running!.pid!, "SIGKILL");
      await expect
        .poll(async () => textOf(await call(client, "debug", { operation: "step_over" })))
        // What it last wrote to stderr is said too, when it wrote anything (a request in flight as it was killed).
        .toMatch(
          /^The debugpy adapter died \(it exited with SIGKILL(: [\s\S]*)?\); the program and the session went with it\. Launch again\.$/,
        );
      const again = await call(client, "debug", {
        operation: "launch",
        program: "python/inventory/stock.py",
      });
      expect(textOf(again)).toMatch(/Stopped \(breakpoint\)/);
    } finally {
      await copy.remove();
    }
  });

  it("debugpy: the program sees the sys.argv, sys.path and __main__ debugpy gives it; pydevd's socket has TCP_NODELAY", async () => {
    const workdir = await workdirWith({
      "pyproject.toml": "",
      "tools/show.py": "import sys\nmarker = 1\nprint(marker)\n",
    });
    const run = track(await createRun({ workdir, conversationId: "shim", approver: "always", lsp: false }));
    const client = await run.link({ surface: "full" });
    const debug = (args: Record<string, unknown>) => call(client, "debug", args).then(textOf);
    await debug({ operation: "breakpoints", file: "tools/show.py", lines: [3] });
    expect(await debug({ operation: "launch", program: "tools/show.py", args: ["--flag", "x y"] })).toMatch(
      /Stopped \(breakpoint\) in thread \d+ at tools\/show\.py:3 in <module>/,
    );
    const value = async (expression: string) =>
      (await debug({ operation: "evaluate", expression })).replace(/^.*? = /, "").replace(/ \(\w+\)$/, "");
    expect(await value("sys.argv")).toBe(`['${path.join(workdir, "tools/show.py")}', '--flag', 'x y']`);
    expect(await value("sys.path[0]")).toBe(`'${path.join(workdir, "tools")}'`);
    expect(await value("'' in sys.path")).toBe("False");
    expect(await value("__name__")).toBe("'__main__'");
    expect(await value("sorted(k for k in globals() if not k.startswith('__'))")).toBe("['marker', 'sys']");
    expect(await value("str(__import__('os').environ.get('PYTHONPATH'))")).toBe(
      `'${process.env.PYTHONPATH ?? "None"}'`,
    );
    expect(await value("[p for p in sys.path if 'debugpy-nodelay' in p]")).toBe("[]");
    // One frame: the program's (the sitecustomize leaves none behind).
    expect((await call(client, "debug", { operation: "stack" })).structuredContent).toMatchObject({
      frames: [{ name: "<module>", path: "tools/show.py", line: 3 }],
    });
    expect(
      ((await call(client, "debug", { operation: "stack" })).structuredContent as { frames: unknown[] })
        .frames,
    ).toHaveLength(1);
    // Measured: without it every request waits ~44 ms on Nagle (a step with frames and locals 176 ms → 6 ms).
    expect(
      await value(
        "sorted({s.getsockopt(6, 1) for s in __import__('gc').get_objects() if type(s).__name__ == 'socket' and s.fileno() >= 0 and s.type == 1})",
      ),
    ).toBe("[1]");
    // Nothing of it reaches the program's streams: its output is its own.
    await debug({ operation: "continue" });
    expect(await debug({ operation: "output" })).toBe("1\n");
  });

  it("debugpy: a PYTHONPATH and a sitecustomize of the user's own still apply to the program", async () => {
    const workdir = await workdirWith({
      "pyproject.toml": "",
      "site_extra/sitecustomize.py": "import os\nos.environ['USER_SITECUSTOMIZE'] = 'ran'\n",
      "site_extra/helper_mod.py": "VALUE = 7\n",
      "app.py": "import os\nimport helper_mod\nvalue = helper_mod.VALUE\nprint(value)\n",
    });
    const userPath = path.join(workdir, "site_extra");
    const before = process.env.PYTHONPATH;
    // The adapter (and so the program) is spawned at launch with this process's environment.
    process.env.PYTHONPATH = userPath;
    try {
      const run = track(
        await createRun({ workdir, conversationId: "userpath", approver: "always", lsp: false }),
      );
      const client = await run.link({ surface: "full" });
      const debug = (args: Record<string, unknown>) => call(client, "debug", args).then(textOf);
      await debug({ operation: "breakpoints", file: "app.py", lines: [4] });
      expect(await debug({ operation: "launch", program: "app.py" })).toMatch(
        /Stopped \(breakpoint\).*app\.py:4/,
      );
      const value = async (expression: string) =>
        (await debug({ operation: "evaluate", expression })).replace(/^.*? = /, "").replace(/ \(\w+\)$/, "");
      expect(await value("value")).toBe("7");
      expect(await value("os.environ.get('USER_SITECUSTOMIZE')")).toBe("'ran'");
      expect(await value("os.environ.get('PYTHONPATH')")).toBe(`'${userPath}'`);
      expect(await value("'RUNBOUND_ORIGINAL_PYTHONPATH' in os.environ")).toBe("False");
      expect(await value("__import__('sys').modules['sitecustomize'].__file__")).toBe(
        `'${path.join(userPath, "sitecustomize.py")}'`,
      );
    } finally {
      if (before === undefined) delete process.env.PYTHONPATH;
      else process.env.PYTHONPATH = before;
    }
  });

  it("debugpy runs in the project's own .venv when there is one, and adapters says which", async () => {
    const workdir = await workdirWith({ "app/pyproject.toml": "", "app/main.py": "x = 1\nprint(x)\n" });
    await symlink(HOME.venv, path.join(workdir, "app/.venv"));
    const run = track(await createRun({ workdir, conversationId: "venv", approver: "always", lsp: false }));
    const client = await run.link({ surface: "full" });
    const adapters = textOf(await call(client, "debug", { operation: "adapters" }));
    expect(adapters).toMatch(
      /^debugpy: usable — the project's \.venv interpreter .*app\/\.venv\/bin\/python; roots: app$/m,
    );
    expect(adapters).toMatch(/^delve: not usable — no root marker \(go\.mod\) in the workdir$/m);
    await call(client, "debug", { operation: "breakpoints", file: "app/main.py", lines: [2] });
    expect(textOf(await call(client, "debug", { operation: "launch", program: "app/main.py" }))).toMatch(
      /with the project's \.venv interpreter .*\nBreakpoints: app\/main\.py:2 verified/,
    );
  });

  it("a project .venv without debugpy: its interpreter runs the program, debugpy's adapter comes from runbound's environment", async () => {
    const workdir = await workdirWith({
      "app/pyproject.toml": "",
      "app/pkg/__init__.py":
        "def total(items):\n    acc = 0\n    for n in items:\n        acc += n\n    return acc\n",
      "app/main.py":
        "import sys\nfrom pkg import total\nresult = total([1, 2, 3])\nprint(sys.prefix, result)\n",
    });
    const made = spawnSync("python3", ["-m", "venv", "--without-pip", path.join(workdir, "app/.venv")], {
      encoding: "utf8",
    });
    expect(made.status, made.stderr).toBe(0);
    const run = track(
      await createRun({ workdir, conversationId: "bare-venv", approver: "always", lsp: false }),
    );
    const client = await run.link({ surface: "full" });
    expect(textOf(await call(client, "debug", { operation: "adapters" }))).toMatch(
      /^debugpy: usable — the project's \.venv interpreter .*app\/\.venv\/bin\/python \(debugpy from runbound's environment\); roots: app$/m,
    );
    await call(client, "debug", { operation: "breakpoints", file: "app/pkg/__init__.py", lines: [4] });
    const stopped = await call(client, "debug", { operation: "launch", program: "app/main.py" });
    expect(stopped.structuredContent, textOf(stopped)).toMatchObject({
      state: "stopped",
      location: { path: "app/pkg/__init__.py", line: 4 },
    });
    expect(
      textOf(await call(client, "debug", { operation: "evaluate", expression: "__import__('sys').prefix" })),
    ).toContain(path.join(workdir, "app/.venv"));
    expect(textOf(await call(client, "debug", { operation: "evaluate", expression: "n" }))).toBe(
      "n = 1 (int)",
    );
    await call(client, "debug", { operation: "breakpoints", file: "app/pkg/__init__.py", lines: [] });
    const out = await call(client, "debug", { operation: "step_out" });
    expect(out.structuredContent, textOf(out)).toMatchObject({ location: { path: "app/main.py", line: 3 } });
  });

  it("a project interpreter that dies as it starts: launch says so, with what it wrote, and leaves nothing behind", async () => {
    const workdir = await workdirWith({ "pyproject.toml": "", "main.py": "print(1)\n" });
    // As a .venv whose base Python was removed looks to the launcher: it runs, writes why, and exits.
    await mkdir(path.join(workdir, ".venv/bin"), { recursive: true });
    await writeFile(
      path.join(workdir, ".venv/bin/python"),
      "#!/bin/sh\necho 'no module named encodings' >&2\nexit 3\n",
      {
        mode: 0o755,
      },
    );
    const run = track(
      await createRun({ workdir, conversationId: "dying-python", approver: "always", lsp: false }),
    );
    const client = await run.link({ surface: "full" });
    const launched = await call(client, "debug", { operation: "launch", program: "main.py" });
    expect(textOf(launched)).toBe(
      `debugpy could not start main.py: the program's interpreter (${path.join(workdir, ".venv/bin/python")}) exited with code 3 before debugpy's launcher could connect; it wrote: no module named encodings. Check that its environment runs (its python may point at a Python that is gone).`,
    );
    const place = run.processes.confinedPlace;
    const folder = place.scratch ?? tmpdir();
    expect(readdirSync(folder).filter((n) => n.startsWith("runbound-interpreter-"))).toEqual([]);
  });

  it("attach: joins a program already running under debugpy and stops at a breakpoint set before", async () => {
    const workdir = await workdirWith({
      "svc/pyproject.toml": "",
      "svc/app.py": "import time\ntotal = 0\nfor i in range(3):\n    total += i\nprint('total', total)\n",
    });
    const port = await freePort();
    const python = HOME.python;
    const program = spawn(
      python,
      ["-m", "debugpy", "--listen", `127.0.0.1:${port}`, "--wait-for-client", "svc/app.py"],
      { cwd: workdir, stdio: "ignore" },
    );
    const exited = new Promise<number | null>((resolve) => program.once("exit", (code) => resolve(code)));
    try {
      // debugpy listens before the program runs (--wait-for-client).
      await listening(port);
      // The program runs on the host, outside every sandbox: a run that requires confinement does not join it.
      if (probeBubblewrap().ok) {
        const required = track(
          await createRun({
            workdir,
            conversationId: "attach",
            approver: "always",
            lsp: false,
            confine: "required",
          }),
        );
        expect(
          textOf(
            await call(await required.link({ surface: "full" }), "debug", { operation: "attach", port }),
          ),
        ).toMatch(
          new RegExp(
            `^attach to 127\\.0\\.0\\.1:${port} is refused on this run: nothing of the run listens there, and the program that does runs on the host, outside the sandbox`,
          ),
        );
      }
      const run = track(
        await createRun({ workdir, conversationId: "attach", approver: "always", lsp: false }),
      );
      const client = await run.link({ surface: "full" });
      await call(client, "debug", { operation: "breakpoints", file: "svc/app.py", lines: [4] });
      const attached = await call(client, "debug", { operation: "attach", port });
      expect(textOf(attached)).toMatch(
        new RegExp(`^Attached to 127\\.0\\.0\\.1:${port} under debugpy, stopped`),
      );
      if (probeBubblewrap().ok)
        expect(textOf(attached)).toContain(
          "The program runs on the host, outside the run's sandbox: an evaluate or set_variable makes it run any code, as its user.",
        );
      expect(attached.structuredContent).toMatchObject({
        state: "stopped",
        reason: "breakpoint",
        location: { path: "svc/app.py", line: 4 },
      });
      expect(textOf(await call(client, "debug", { operation: "evaluate", expression: "i + 40" }))).toBe(
        "i + 40 = 40 (int)",
      );
      expect(textOf(await call(client, "debug", { operation: "terminate" }))).toMatch(
        /^Detached from .*; the program keeps running \(runbound did not start it\)\.$/,
      );
      // Detached, it runs to its own end.
      expect(await exited).toBe(0);
    } finally {
      program.kill("SIGKILL");
    }
  });

  it("refuses what it cannot do, saying what is missing", async () => {
    const workdir = await workdirWith({
      "loose.py": "x = 1\n",
      "src/tool.c": "int main(void) { return 0; }\n",
    });
    const run = track(await createRun({ workdir, conversationId: "bad", approver: "always", lsp: false }));
    const client = await run.link({ surface: "full" });
    const debug = (args: Record<string, unknown>) => call(client, "debug", args).then(textOf);
    expect(await debug({ operation: "launch" })).toBe("launch needs `program` (what to run).");
    expect(await debug({ operation: "launch", program: "nope.py" })).toBe(
      "`program` nope.py does not exist; build it first or give the source file to run.",
    );
    expect(await debug({ operation: "launch", program: "src/tool.c" })).toBe(
      "`program` src/tool.c is source code; lldb debugs the built binary. Build it with debug information first (gcc -g -O0 -o src/tool src/tool.c), then launch the binary.",
    );
    expect(await debug({ operation: "launch", program: "loose.py" })).toBe(
      "debugpy cannot debug loose.py: no root marker (pyproject.toml, setup.py, setup.cfg, requirements.txt) in its folder or above it inside the workdir.",
    );
    expect(await debug({ operation: "continue" })).toBe(
      "No debug session is running. continue needs one: launch a program first (debug launch).",
    );
    expect(await debug({ operation: "breakpoints", file: "../x.py", lines: [1] })).toMatch(
      /^`file` "..\/x.py" is outside the workdir/,
    );
    expect(await debug({ operation: "breakpoints", file: "loose.py", lines: [1, 9, 12] })).toBe(
      "`lines` 9, 12 are past the end of loose.py (1 line); no breakpoint was changed.",
    );
  });

  it("is exec-tier (absent on plan) and needs a conversation", async () => {
    const workdir = await workdirWith();
    const withConversation = track(await createRun({ workdir, conversationId: "c", lsp: false }));
    const without = track(await createRun({ workdir, lsp: false }));
    expect(withConversation.tools("full")).toContain("debug");
    expect(withConversation.tools("plan")).not.toContain("debug");
    expect(without.tools("full")).not.toContain("debug");
  });
});

describe("a program that fails stops where it failed, saying what happened", () => {
  const cases = [
    {
      adapter: "debugpy",
      files: {
        "py/pyproject.toml": "",
        "py/boom.py": "def ratio(a, b):\n    return a / b\n\nprint(ratio(1, 0))\n",
      },
      program: "py/boom.py",
      // An uncaught exception: without the adapter's default exception filter the program only exited (code 1).
      stop: /^Stopped \(exception\) in thread \d+ at py\/boom\.py:2 in ratio\n {2}2 {2}return a \/ b\nException: ZeroDivisionError: division by zero\n/,
      exception: { id: "ZeroDivisionError", description: "division by zero" },
    },
    {
      adapter: "delve",
      files: {
        "go/go.mod": "module boom\n\ngo 1.21\n",
        "go/main.go":
          'package main\n\nimport "fmt"\n\nfunc pick(xs []int, i int) int {\n\treturn xs[i]\n}\n\nfunc main() {\n\tfmt.Println(pick([]int{1, 2}, 5))\n}\n',
      },
      program: "go",
      // A panic stops inside the Go runtime; the answer also points at the frame in the workdir.
      stop: /^Stopped \(exception\) in thread \d+ at \/.*runtime\/panic\.go:\d+ in runtime\.fatalpanic\n.*\nException: panic: "runtime error: index out of range \[5\] with length 2"\nFirst frame in the workdir: #\d+ main\.pick at go\/main\.go:6\n {2}6 {2}return xs\[i\]\n/,
      exception: { id: "panic" },
    },
    {
      adapter: "lldb",
      files: {
        "c/CMakeLists.txt": "",
        "c/boom.c":
          '#include <stdio.h>\n\nint read_it(int *p) {\n  return *p;\n}\n\nint main(void) {\n  printf("%d\\n", read_it(0));\n  return 0;\n}\n',
      },
      program: "c/boom",
      stop: /^Stopped \(exception\) in thread \d+ at c\/boom\.c:4 in read_it\n {2}4 {2}return \*p;\nException: signal SIGSEGV/,
      exception: { id: "signal" },
    },
  ] as const;
  for (const c of cases) {
    it(`${c.adapter}: stops at the failure with what was raised; continue lets it end`, async () => {
      const workdir = await workdirWith(c.files);
      if (c.adapter === "lldb")
        execFileSync("gcc", [
          "-g",
          "-O0",
          "-o",
          path.join(workdir, "c/boom"),
          path.join(workdir, "c/boom.c"),
        ]);
      const run = track(
        await createRun({ workdir, conversationId: c.adapter, approver: "always", lsp: false }),
      );
      const client = await run.link({ surface: "full" });
      const launched = await call(client, "debug", { operation: "launch", program: c.program });
      expect(textOf(launched).split("\n").slice(1).join("\n")).toMatch(c.stop);
      expect(launched.structuredContent).toMatchObject({ state: "stopped", exception: c.exception });
      const ended = await call(client, "debug", { operation: "continue" });
      expect(ended.structuredContent).toMatchObject({ state: "exited" });
      expect(ended.structuredContent).not.toHaveProperty("exception");
    });
  }
});

describe("a program that cannot start, or ends at once with a failure", () => {
  it("delve: the build's compiler errors are in the answer (delve's own says 'check the debug console')", async () => {
    const workdir = await workdirWith({
      "go/go.mod": "module bad\n\ngo 1.21\n",
      "go/main.go": "package main\n\nfunc main() {\n\tfmt.Println(y)\n}\n",
    });
    const run = track(await createRun({ workdir, conversationId: "bad-go", approver: "always", lsp: false }));
    const text = textOf(
      await call(await run.link({ surface: "full" }), "debug", { operation: "launch", program: "go" }),
    );
    expect(text).toMatch(
      /^delve could not start go: Failed to launch: Build error: .*\nWhat it printed before that:\n/,
    );
    expect(text).toMatch(/main\.go:4:2: undefined: fmt/);
  });

  it("debugpy: a SyntaxError ends the program before any stop; the launch answer shows its last lines", async () => {
    const workdir = await workdirWith({ "pyproject.toml": "", "bad.py": "def f(:\n    pass\n" });
    const run = track(await createRun({ workdir, conversationId: "bad-py", approver: "always", lsp: false }));
    const launched = await call(await run.link({ surface: "full" }), "debug", {
      operation: "launch",
      program: "bad.py",
    });
    expect(launched.structuredContent).toMatchObject({ state: "exited", exit_code: 1 });
    expect(textOf(launched)).toMatch(
      /The program exited with code 1\. .*\nIts last \d+ lines of output:\n[\s\S]*\nSyntaxError: invalid syntax$/,
    );
  });
});

describe("a program that never stops", () => {
  it("launch answers 'running' after the stop deadline, not the launch one; pause then stops it where it is", async () => {
    const workdir = await workdirWith({
      "pyproject.toml": "",
      "serve.py": "import time\n\nwhile True:\n    time.sleep(0.01)\n",
    });
    // With the first stop awaited for launchMs, this launch answered after 10 minutes (here: after the test's
    // timeout); a real one after 60 s — the MCP client's own request timeout, so the harness gave up first.
    const run = track(
      await createRun({
        workdir,
        conversationId: "serve",
        approver: "always",
        lsp: false,
        debug: { timeouts: { launchMs: 600_000, stopMs: 1500 } },
      }),
    );
    const client = await run.link({ surface: "full" });
    // A client that resets its request timeout on progress can wait out a long launch: it gets a beat a second.
    const beats: { progress: number; message?: string }[] = [];
    const launched = (await client.callTool(
      { name: "debug", arguments: { operation: "launch", program: "serve.py" } },
      {
        onprogress: (p) => beats.push(p),
        resetTimeoutOnProgress: true,
      },
    )) as ToolResult;
    expect(beats.length).toBeGreaterThan(0);
    expect(beats[0]!.message).toMatch(/^launching serve\.py: \d+ s$/);
    expect(textOf(launched)).toMatch(
      /^Launched serve\.py under debugpy, running, .*\nThe program is running and has not stopped within the deadline; use pause, or status later\.$/,
    );
    expect(run.resource("debug")!.running!.waiting).toBe(0);
    const paused = await call(client, "debug", { operation: "pause" });
    expect(paused.structuredContent).toMatchObject({ state: "stopped", reason: "pause" });
    expect(textOf(await call(client, "debug", { operation: "terminate" }))).toMatch(/^Terminated serve\.py/);
  });
});

/** Sets a breakpoint in the sample's stock.py and launches it: the start of the session fault tests. */
async function launchStockWithBreakpoint(client: RunLink): Promise<void> {
  await call(client, "debug", { operation: "breakpoints", file: "python/inventory/stock.py", lines: [32] });
  await call(client, "debug", { operation: "launch", program: "python/inventory/stock.py" });
}

describe("debug attach to delve and lldb-server, and what it refuses", () => {
  let copy: { dir: string; remove: () => Promise<void> };
  beforeAll(async () => {
    copy = await workspaceCopy();
    execFileSync("go", ["build", "-gcflags=all=-N -l", "-o", "stockbin", "."], {
      cwd: path.join(copy.dir, "go"),
    });
    execFileSync("gcc", ["-g", "-O0", "-o", "c/stock", "c/stock.c"], { cwd: copy.dir });
  });
  // The debug servers are the test's own programs (runbound leaves an attached program running): each is killed with
  // its process group here. A timer that killed them was unref'd, so a worker that exited first left every
  // `dlv --accept-multiclient` of every run behind (seen: ten after a morning of test runs).
  const servers: ReturnType<typeof spawn>[] = [];
  afterAll(async () => {
    for (const server of servers) {
      if (server.exitCode !== null || server.signalCode !== null) continue;
      const gone = new Promise((resolve) => server.once("exit", resolve));
      process.kill(-server.pid!, "SIGKILL");
      await gone;
    }
    await copy?.remove();
  });

  /** Starts a debug server, attaches with a breakpoint set before, checks the stop, terminates; returns its stdout. */
  async function attachTo(
    command: string,
    args: (port: number) => string[],
    cwd: string,
    breakpoint: { file: string; line: number },
    through: RegExp,
    /** delve's server prints the program's output; lldb-server's program writes to a terminal of its own. */
    programOutputOnServerStdout: boolean,
  ): Promise<{ attached: string; stdout: string; exit: Promise<number | null> }> {
    const port = await freePort();
    const server = spawn(command, args(port), { cwd, stdio: ["ignore", "pipe", "pipe"], detached: true });
    servers.push(server);
    let stdout = "";
    server.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    const exit = new Promise<number | null>((resolve) => server.once("exit", (code) => resolve(code)));
    try {
      await listening(port);
      const run = track(
        await createRun({ workdir: copy.dir, conversationId: "attach", approver: "always", lsp: false }),
      );
      const client = await run.link({ surface: "full" });
      await call(client, "debug", {
        operation: "breakpoints",
        file: breakpoint.file,
        lines: [breakpoint.line],
      });
      const attached = await call(client, "debug", { operation: "attach", port });
      expect(textOf(attached)).toMatch(
        new RegExp(`^Attached to 127\\.0\\.0\\.1:${port} under \\w+, stopped, .* with ${through.source}`),
      );
      expect(attached.structuredContent).toMatchObject({
        state: "stopped",
        reason: "breakpoint",
        location: { path: breakpoint.file, line: breakpoint.line },
        locals: expect.arrayContaining([expect.objectContaining({ name: "count", value: "3" })]),
      });
      if (!programOutputOnServerStdout) {
        expect(textOf(await call(client, "debug", { operation: "output" }))).toMatch(
          /^\(no output received: the program was started outside runbound/,
        );
      }
      // Detach: the program runs on to its end, as it would have without runbound.
      expect(textOf(await call(client, "debug", { operation: "terminate" }))).toMatch(
        new RegExp(
          `^Detached from 127\\.0\\.0\\.1:${port} under \\w+, .*; the program keeps running \\(runbound did not start it\\)\\.$`,
        ),
      );
      if (programOutputOnServerStdout)
        await expect.poll(() => stdout, { timeout: 20_000 }).toContain("value 5000");
      return { attached: textOf(attached), stdout, exit };
    } finally {
      // delve's multi-client server outlives its program; lldb-server ends with it (the test waits for that).
      if (programOutputOnServerStdout) process.kill(-server.pid!, "SIGKILL");
    }
  }

  it("delve: a program under `dlv exec --headless --accept-multiclient` (remote attach), left running on detach", async () => {
    const dlv = path.join(HOME.goBin, "dlv");
    await attachTo(
      dlv,
      (port) => ["exec", "./stockbin", "--headless", `--listen=127.0.0.1:${port}`, "--accept-multiclient"],
      path.join(copy.dir, "go"),
      { file: "go/stock.go", line: 20 },
      /the program's own dlv --headless server \(pid \d+\)/,
      true,
    );
  });

  it("lldb: a program under `lldb-server gdbserver`, through runbound's lldb adapter; it runs to its end on detach", async () => {
    const lldbServer = onPath("lldb-server", true);
    expect(lldbServer, "lldb-server is installed with lldb (scripts/setup.mjs)").toBeDefined();
    const { exit } = await attachTo(
      lldbServer!,
      (port) => ["gdbserver", `127.0.0.1:${port}`, "./c/stock"],
      copy.dir,
      { file: "c/stock.c", line: 16 },
      /lldb-(dap|vscode)-\d+.*through lldb-server \(pid \d+\)/,
      false,
    );
    // lldb-server ends with its program: 0 once the program, detached, has run to its end.
    expect(await exit).toBe(0);
  });

  it("says what listens on a port that is no debug server, and when nothing does; how to start one either way", async () => {
    const run = track(
      await createRun({ workdir: copy.dir, conversationId: "attach-bad", approver: "always", lsp: false }),
    );
    const client = await run.link({ surface: "full" });
    const port = await freePort();
    const nothing = textOf(await call(client, "debug", { operation: "attach", port }));
    expect(nothing).toMatch(new RegExp(`^Nothing listens on 127\\.0\\.0\\.1:${port}\\. attach joins`));
    expect(nothing).toContain("dlv exec ./prog --headless --listen=127.0.0.1:PORT --accept-multiclient");
    const held = spawn(
      "python3",
      [
        "-c",
        `import socket, time\ns = socket.socket()\ns.bind(("127.0.0.1", ${port}))\ns.listen()\ntime.sleep(60)`,
      ],
      { stdio: "ignore" },
    );
    try {
      await listening(port);
      expect(textOf(await call(client, "debug", { operation: "attach", port }))).toMatch(
        new RegExp(
          `^127\\.0\\.0\\.1:${port} is held by \`[^\`]*python3[^\`]*\` \\(pid ${held.pid}\\), which is not a debug server runbound knows\\. attach joins`,
        ),
      );
    } finally {
      const gone = new Promise((r) => held.once("exit", r));
      held.kill("SIGKILL");
      await gone;
    }
    // A Node program is asked whether it is an inspector (this one reads and never answers): the connection is ended.
    const plain = net.createServer((socket) => socket.resume()).listen(port, "127.0.0.1");
    await new Promise((r) => plain.once("listening", r));
    try {
      expect(textOf(await call(client, "debug", { operation: "attach", port }))).toMatch(
        new RegExp(
          `^127\\.0\\.0\\.1:${port} is held by \`[^\`]*node[^\`]*\` \\(pid ${process.pid}\\), a Node program, but not its inspector`,
        ),
      );
    } finally {
      await new Promise((r) => plain.close(r));
    }
    expect(textOf(await call(client, "debug", { operation: "status" }))).toMatch(/No debug session/);
  });
});

async function freePort(): Promise<number> {
  const free = net.createServer().listen(0, "127.0.0.1");
  await new Promise((r) => free.once("listening", r));
  const port = (free.address() as net.AddressInfo).port;
  await new Promise((r) => free.close(r));
  return port;
}

/** Until something is in LISTEN state on 127.0.0.1:port. */
async function listening(port: number): Promise<void> {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  await expect
    .poll(
      async () => (await readFile("/proc/net/tcp", "utf8")).includes(`0100007F:${hex} 00000000:0000 0A`),
      {
        timeout: 20_000,
      },
    )
    .toBe(true);
}

describe("a scripted adapter, for orders and faults real ones do not produce on demand", () => {
  /**
   * `use` with a session on test/fixtures/fake-dap.mjs stepping through prog.txt (`hang` names a request it never
   * answers); the session and its processes are ended after, whatever happened.
   */
  async function scripted(
    hang: string | undefined,
    use: (s: { session: DebugSession; program: string; workdir: string }) => Promise<void>,
  ) {
    const workdir = await workdirWith({ "prog.txt": "one\ntwo\nthree\nfour\nfive\n" });
    const program = path.join(workdir, "prog.txt");
    const { session, processes } = scriptedSession(workdir, program, (target) => ({
      program: target,
      ...(hang ? { hang } : {}),
    }));
    try {
      await use({ session, program, workdir });
    } finally {
      await session.terminate();
      await processes.killAll();
    }
  }

  it("an adapter without conditions, logpoints, function breakpoints or setVariable: each is refused, nothing half-set", async () => {
    await scripted(undefined, async ({ session, program, workdir }) => {
      const plan = book(program, 2);
      plan.functions = ["main"];
      plan.exceptions = ["raised"];
      const { report, notes } = await session.launch([], workdir, plan);
      expect(report).toMatchObject({ state: "stopped", location: { line: 2 } });
      expect(notes).toEqual([
        "the scripted adapter does not support function breakpoints (it does not advertise supportsFunctionBreakpoints); set a line breakpoint in the function instead.",
        '`exception_breakpoints` "raised" is not a filter of the scripted adapter; it offers none.',
        "the scripted adapter stops on its default exception filters instead",
      ]);
      await expect(
        session.breakpoints.lines(program, [
          { line: 3, condition: "x > 1" },
          { line: 4, log_message: "at {x}" },
        ]),
      ).rejects.toThrow(
        "the scripted adapter does not support conditions (it does not advertise supportsConditionalBreakpoints), logpoints (it does not advertise supportsLogPoints); no breakpoint was changed.",
      );
      await expect(session.setVariable("line", "5")).rejects.toThrow(
        "the scripted adapter cannot set variables (it advertises neither supportsSetVariable nor supportsSetExpression); evaluate an assignment instead.",
      );
      // The breakpoint at line 2 is still the only one: the next stop is the step's, not a line 3 or 4 one.
      expect(await session.resume("next")).toMatchObject({ reason: "step", location: { line: 3 } });
    });
  });

  it("a step's stop that arrives in the same read as the step's answer is caught", async () => {
    await scripted(undefined, async ({ session, program, workdir }) => {
      const { report: first } = await session.launch([], workdir, book(program, 2));
      expect(first).toMatchObject({
        state: "stopped",
        reason: "breakpoint",
        location: { line: 2, source: "two" },
      });
      for (const [line, source] of [
        [3, "three"],
        [4, "four"],
      ] as const) {
        const report = await session.resume("next");
        expect(report).toMatchObject({
          state: "stopped",
          reason: "step",
          location: { path: "prog.txt", line, source },
        });
        expect(report.locals).toEqual([{ name: "line", value: String(line) }]);
      }
      expect(session.waiting).toBe(0);
    });
  });

  it("a message past 64 MB from the adapter is skipped as it streams by and said; the session goes on", async () => {
    const workdir = await workdirWith({ "prog.txt": "one\ntwo\nthree\n" });
    const program = path.join(workdir, "prog.txt");
    const flood = 70 * 2 ** 20;
    const { session, processes } = scriptedSession(workdir, program, (target) => ({
      program: target,
      flood,
    }));
    try {
      await session.launch([], workdir, book(program, 1));
      const before = process.memoryUsage().rss;
      expect(await session.resume("next")).toMatchObject({
        state: "stopped",
        reason: "step",
        location: { line: 2 },
      });
      const { text } = session.output();
      expect(text).toContain(
        "(runbound dropped a message of 70.0 MB from the adapter: over its 64 MB limit)\n",
      );
      expect(text).toContain("after the flood\n");
      // Never held whole: the host's memory did not grow by the message (with headroom for the test's own work).
      expect(process.memoryUsage().rss - before).toBeLessThan(flood);
      expect(await session.resume("next")).toMatchObject({ location: { line: 3 } });
    } finally {
      await session.terminate();
      await processes.killAll();
    }
  });

  it("a message from the adapter that is not JSON ends the session with why; the host goes on", async () => {
    const workdir = await workdirWith({ "prog.txt": "one\ntwo\n" });
    const program = path.join(workdir, "prog.txt");
    const { session, processes } = scriptedSession(workdir, program, (target) => ({
      program: target,
      garbage: true,
    }));
    try {
      await session.launch([], workdir, book(program, 1));
      await expect(session.resume("next")).rejects.toThrow(
        /the adapter sent a message that is not JSON: "\{not json"/,
      );
    } finally {
      await session.terminate();
      await processes.killAll();
    }
  });

  it("an adapter that does not answer a step: the answer says so and does not claim a stop", async () => {
    await scripted("next", async ({ session, program, workdir }) => {
      await session.launch([], workdir, book(program, 2));
      await expect(session.resume("next")).rejects.toThrow(
        /^the scripted adapter did not answer next within 1000 ms: the program may be stopped or running\. Use status \(or pause\); if the adapter hangs, terminate and launch again\.$/,
      );
      expect(session.state).toBe("running");
      expect(session.waiting).toBe(0);
    });
  });

  it("an adapter that does not answer stackTrace at a stop: the stop is answered, naming what is missing", async () => {
    await scripted("stackTrace", async ({ session, program, workdir }) => {
      const { report } = await session.launch([], workdir, book(program, 2));
      expect(report).toMatchObject({
        state: "stopped",
        reason: "breakpoint",
        frames: [],
        locals: [],
        unavailable: ["frames: the scripted adapter did not answer stackTrace within 1000 ms"],
      });
      expect(report.location).toBeUndefined();
      expect(describeStop(report)).toBe(
        "Stopped (breakpoint) in thread 1\nNot available at this stop: frames: the scripted adapter did not answer stackTrace within 1000 ms. status asks again.",
      );
      // The tool names the adapter's hang as such, not as a fault of runbound (only the supervisor is stood in for).
      const ctx = { use: () => ({ session: () => session, running: session }) } as unknown as ToolContext;
      await expect(
        debugTool.run({ operation: "stack" } as Parameters<typeof debugTool.run>[0], ctx),
      ).rejects.toThrow(
        /^the scripted adapter did not answer stackTrace within 1000 ms\. It may hang: status shows the session; terminate ends it, then launch again\.$/,
      );
    });
  });
});

/**
 * runbound's Node adapter beyond the shared table (debug.test.ts, debug-breakpoints.test.ts): TypeScript compiled by
 * tsc with source maps, a breakpoint in a module that loads later (bound then, said verified), a `debugger`
 * statement, an uncaught exception's message, confinement (the program sees neither the user's home nor can it
 * write outside the workdir), TypeScript where neither tsx nor Node's type stripping is there, and the adapter
 * killed mid-session.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startInspected } from "../src/dap/node/inspector.js";
import { createRun, type Run } from "../src/index.js";
import type { RunLink } from "../src/run-link.js";
import { call, HOME, suiteWorkdir, textOf } from "./helpers.js";

const CANARY = path.join(homedir(), `.runbound-node-debug-canary-${process.pid}`);
// runbound's own folder: shown read-only to a confined program (its /tmp and home are private and thrown away).
const OUTSIDE = path.join(process.cwd(), `.node-debug-outside-${process.pid}`);

const FILES = {
  "package.json": '{ "name": "node-debug", "private": true }\n',
  // Compiled by tsc into dist/ with its maps: the breakpoint is set in the .ts file, the program is dist/calc.js.
  "tsconfig.json": JSON.stringify({
    compilerOptions: {
      target: "es2022",
      module: "commonjs",
      sourceMap: true,
      outDir: "dist",
      rootDir: "src",
    },
    include: ["src"],
  }),
  "src/calc.ts": [
    "interface Line {",
    "  price: number;",
    "  qty: number;",
    "}",
    "",
    "export function total(lines: Line[]): number {",
    "  let sum = 0;",
    "  for (const line of lines) sum += line.price * line.qty;",
    "  return sum;",
    "}",
    "",
    "console.log(total([{ price: 3, qty: 2 }, { price: 5, qty: 1 }]));",
    "",
  ].join("\n"),
  "main.js": [
    "function later() {",
    '  const lazy = require("./lazy.js");',
    "  return lazy.twice(21);",
    "}",
    "console.log(later());",
    "",
  ].join("\n"),
  "lazy.js": ["exports.twice = (n) => {", "  const doubled = n * 2;", "  return doubled;", "};", ""].join(
    "\n",
  ),
  "stmt.js": [
    "let seen = 1; const many = Array.from({ length: 1e6 }, (_, i) => i);",
    "debugger;",
    "seen += 1;",
    "console.log(seen);",
    "",
  ].join("\n"),
  "throws.js": ["function fail() {", '  throw new TypeError("no stock for A1");', "}", "fail();", ""].join(
    "\n",
  ),
  "escape.js": [
    'const fs = require("node:fs");',
    "let home = 'hidden';",
    `try { fs.readFileSync(${JSON.stringify(CANARY)}); home = 'LEAKED'; } catch {}`,
    "let outside = 'refused';",
    `try { fs.writeFileSync(${JSON.stringify(OUTSIDE)}, 'x'); outside = 'WRITTEN'; } catch {}`,
    "console.log('home ' + home + ', outside ' + outside);",
    "",
  ].join("\n"),
  "plain.ts": ["const answer: number = 6 * 7;", "console.log(answer);", ""].join("\n"),
};

describe("debug with runbound's Node adapter", () => {
  let run: Run;
  let client: RunLink;
  let dir: string;
  let remove: () => Promise<void>;
  const debug = async (args: Record<string, unknown>) => textOf(await call(client, "debug", args));
  /** Launches with breakpoints, hands over the first answer, and ends the session whatever happened. */
  const session = async (
    file: string,
    lines: number[],
    program: string,
    check: (first: string) => Promise<void>,
  ) => {
    if (lines.length) await debug({ operation: "breakpoints", file, lines });
    try {
      await check(await debug({ operation: "launch", program }));
    } finally {
      await debug({ operation: "terminate" });
      await debug({ operation: "breakpoints", file, lines: [] });
    }
  };

  beforeAll(async () => {
    ({ dir, remove } = await suiteWorkdir(FILES));
    // TypeScript 6's tsc, from runbound's home (the `typescript6` component).
    const tsc = path.join(HOME.npmPrefix, "node_modules/typescript6/bin/tsc");
    execFileSync(process.execPath, [tsc, "-p", dir]);
    writeFileSync(CANARY, "secret\n");
    run = await createRun({ workdir: dir, conversationId: "node", approver: "always", lsp: false });
    client = await run.link({ surface: "full" });
  });
  afterAll(async () => {
    await run?.dispose();
    await remove?.();
    rmSync(CANARY, { force: true });
    rmSync(OUTSIDE, { force: true });
  });

  it("TypeScript compiled with source maps: a breakpoint in the .ts file stops there; the frames are the .ts file's", async () => {
    await session("src/calc.ts", [8], "dist/calc.js", async (first) => {
      expect(first).toMatch(/^Breakpoints: src\/calc\.ts:8 verified$/m);
      expect(first).toMatch(/^Stopped \(breakpoint\) in thread 1 at src\/calc\.ts:8 in total$/m);
      expect(first).toContain("lines = Array(2) [{…}, {…}]");
      expect(await debug({ operation: "stack" })).toMatch(
        /#0 total \(src\/calc\.ts:8\)\n {2}#1 <anonymous> \(src\/calc\.ts:12\)/,
      );
      expect(await debug({ operation: "evaluate", expression: "lines.length" })).toBe(
        "lines.length = 2 (number)",
      );
    });
  });

  it("a breakpoint in a module required later is bound when it loads, and said verified", async () => {
    await session("lazy.js", [3], "main.js", async (first) => {
      expect(first).toMatch(/^Breakpoints: lazy\.js:3 verified$/m);
      expect(first).toMatch(/^Stopped \(breakpoint\) in thread 1 at lazy\.js:3 /m);
      expect(first).toMatch(/Locals: .*\bdoubled = 42\b/);
      expect(await debug({ operation: "continue" })).toMatch(/^The program exited with code 0/);
      await expect.poll(() => debug({ operation: "output" })).toMatch(/^42$/m);
    });
  });

  it("a line without code moves the breakpoint down to the next line that has some", async () => {
    await session("lazy.js", [4], "main.js", async (first) => {
      // Line 4 is `};`: V8 binds the breakpoint at the function's return there; whichever line it is, it is said.
      expect(first).toMatch(/^Breakpoints: lazy\.js:4 verified/m);
      expect(first).toMatch(/^Stopped \(breakpoint\) in thread 1 at lazy\.js:\d+ /m);
    });
  });

  it("a `debugger` statement stops the program and says so", async () => {
    await session("stmt.js", [], "stmt.js", async (first) => {
      expect(first).toMatch(/^Stopped \(debugger statement\) in thread 1 at stmt\.js:2 /m);
      expect(first).toMatch(/Locals: .*\bseen = 1\b/);
      // A 10-million-character string crosses to the host as 8,192 characters, its whole length still said.
      expect(await debug({ operation: "evaluate", expression: '"x".repeat(10_000_000)' })).toMatch(
        /^"x".repeat\(10_000_000\) = "x{399}… \(10000002 characters\)/,
      );
      // An array of a million elements: a thousand of them cross (runbound lists what it shows of those).
      // A local array of a million elements: a thousand of its children cross, and a last row says the rest.
      const launched = await call(client, "debug", { operation: "status" });
      const many = (
        launched.structuredContent as { locals: { name: string; reference?: number }[] }
      ).locals.find((l) => l.name === "many");
      const rows = await debug({ operation: "variables", reference: many!.reference });
      expect(rows).toMatch(/showing 50 of 1001\b/);
    });
  });

  it("an uncaught exception (the uncaught filter) stops where it is thrown, with its message", async () => {
    await debug({ operation: "breakpoints", exception_breakpoints: ["uncaught"] });
    try {
      await session("throws.js", [], "throws.js", async (first) => {
        expect(first).toMatch(/^Stopped \(exception\) in thread 1 at throws\.js:2 in fail$/m);
        expect(first).toContain("TypeError: no stock for A1");
      });
    } finally {
      await debug({ operation: "breakpoints", exception_breakpoints: [] });
    }
  });

  it("confined: the program sees no file of the user's home and cannot write outside the workdir", async () => {
    await session("escape.js", [], "escape.js", async (first) => {
      expect(first).toMatch(/The program exited with code 0/);
      await expect.poll(() => debug({ operation: "output" })).toMatch(/^home hidden, outside refused$/m);
    });
    expect(existsSync(OUTSIDE)).toBe(false);
  });

  it("killed mid-session, the adapter's end is said, and the next launch works", async () => {
    await debug({ operation: "breakpoints", file: "lazy.js", lines: [3] });
    expect(await debug({ operation: "launch", program: "main.js" })).toMatch(/Stopped \(breakpoint\)/);
    process.kill(run.resource("debug")!.running!.pid!, "SIGKILL");
    await expect
      .poll(() => debug({ operation: "stack" }))
      .toMatch(
        /^The node adapter died \(it exited with SIGKILL\); the program and the session went with it\. Launch again\.$/,
      );
    await debug({ operation: "terminate" });
    expect(await debug({ operation: "launch", program: "main.js" })).toMatch(
      /Stopped \(breakpoint\) in thread 1 at lazy\.js:3 /,
    );
    await debug({ operation: "terminate" });
    await debug({ operation: "breakpoints", file: "lazy.js", lines: [] });
  });
});

describe("the program's inspector", () => {
  it("is not announced on its HTTP endpoint: where the program shares the host's loopback, no other run finds it", async () => {
    const { dir, remove } = await suiteWorkdir({ "wait.js": "setTimeout(() => {}, 60_000);\n" });
    const { child, cdp, url } = await startInspected({
      node: process.execPath,
      nodeArgs: [],
      program: path.join(dir, "wait.js"),
      args: [],
      cwd: dir,
      env: {},
      timeoutMs: 30_000,
      output: () => undefined,
    });
    try {
      const port = new URL(url).port;
      // Node serves /json/list on the inspector's port; by default it names the address to join the program at.
      const listed = await (await fetch(`http://127.0.0.1:${port}/json/list`)).text();
      expect(listed).not.toMatch(/webSocketDebuggerUrl|ws:\/\//);
    } finally {
      await cdp.close();
      child.kill("SIGKILL");
      await remove();
    }
  });
});

describe("TypeScript without tsx", () => {
  it("runs through Node's own type stripping where Node has it, and is refused with the fix where it has not", async () => {
    const { dir, remove } = await suiteWorkdir(FILES);
    // A home without tsx; the project has none either.
    const home = mkdtempSync(path.join(tmpdir(), "runbound-home-"));
    const run = await createRun({
      workdir: dir,
      home,
      conversationId: "bare",
      approver: "always",
      lsp: false,
    });
    try {
      const client = await run.link({ surface: "full" });
      await call(client, "debug", { operation: "breakpoints", file: "plain.ts", lines: [2] });
      const launched = textOf(await call(client, "debug", { operation: "launch", program: "plain.ts" }));
      const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
      if (major > 22 || (major === 22 && minor >= 6))
        expect(launched).toMatch(/^Stopped \(breakpoint\) in thread 1 at plain\.ts:2 /m);
      else
        expect(launched).toMatch(
          /Node v20\.\d+\.\d+ cannot run TypeScript by itself \(type stripping came in Node 22\.6\), and no tsx was found: add it to the project \(npm install -D tsx\), or install runbound's: npx runbound setup --only tsx/,
        );
      await call(client, "debug", { operation: "terminate" });
    } finally {
      await run.dispose();
      await remove();
      rmSync(home, { recursive: true, force: true });
    }
  });
});

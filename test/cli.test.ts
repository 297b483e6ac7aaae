import { spawn, spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseArguments } from "../src/cli/console.js";
import { runTour } from "../src/cli/tour.js";
import { node22, node24, workdirWith } from "./helpers.js";

const ROOT = path.resolve(import.meta.dirname, "..");

describe("npm start: the tour", () => {
  it("links every surface and calls every tool, ending with the run disposed", async () => {
    const lines: string[] = [];
    await runTour((line) => lines.push(line));
    const transcript = lines.join("\n");
    expect(transcript).toMatch(
      /^full +read · write\* · edit\* · apply_patch\* · ask_user · lsp · lsp_rename\* · ast_grep · ast_edit\* · resolve\* · debug\* · eval\* · notebook · notebook_edit\* · notebook_run\* · vibe_spawn · vibe_send · vibe_wait · vibe_kill · vibe_list$/m,
    );
    expect(transcript).toMatch(
      /^plan +read · ask_user · lsp · ast_grep · notebook · vibe_spawn · vibe_send · vibe_wait · vibe_kill · vibe_list$/m,
    );
    expect(transcript).toContain('Started w1 "counter" (fast). vibe_wait w1 for its result.');
    expect(transcript).toContain("count the functions: 3 functions in python/inventory/stock.py");
    for (const tool of [
      "read",
      "write",
      "edit",
      "apply_patch",
      "ask_user",
      "lsp_rename",
      "ast_edit",
      "resolve",
    ])
      expect(transcript).toContain(`▶ full › ${tool} `);
    expect(transcript).toContain("Applied the patch: 2 files changed.");
    expect(transcript).toContain("write is not available on the plan surface");
    expect(transcript).toContain("The person skipped this question.");
    expect(transcript).toContain("this run has no approver and no question port");
    expect(transcript).toMatch(
      /› lsp \{"action":"definition","file":"ts\/src\/main\.ts","line":4,"symbol":"stock\.add"\}\n {2}✓\n {4}ts\/src\/stock\.ts:11 {2}add\(item: Item, count = 1\): void \{$/m,
    );
    expect(transcript).toContain("go/stock.go:38 error: undefined: totl");
    expect(transcript).toContain("1 earlier diagnostic resolved.");
    expect(transcript).toContain("Renamed `add` to `insert`: 2 edits in 2 files.");
    expect(transcript).toContain("(proposed) 2 replacements in 1 file — nothing is written yet");
    expect(transcript).toContain("Unparseable pattern for python");
    expect(transcript).toMatch(/Stopped \(step\) in thread \d+ at python\/inventory\/stock\.py:18 in add/);
    expect(transcript).toContain("(1 image below)");
    expect(transcript).toContain("ValueError: only 2 of B2 left");
    expect(transcript).toContain(
      "Replaced the source of cell 3 (id c47a8d20) in python/stock-report.ipynb: 1 → 1 line.",
    );
    expect(transcript).toContain("value 75.0");
    expect(transcript).toContain("Done: the run was disposed");
  });
});

/** Runs `runbound console` as a person would, typing `input` line by line. */
function consoleSession(
  workdir: string,
  input: string[],
  surface = "full",
  extra: string[] = [],
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(ROOT, "bin/runbound.mjs"), "console", "--workdir", workdir, "--surface", surface, ...extra],
      {
        cwd: ROOT,
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      out += d.toString();
    });
    // Type each line only once the console shows a new prompt, as a person would.
    let sent = 0;
    let seen = 0;
    const timer = setInterval(() => {
      if (sent < input.length && out.length > seen && /(> |\.\.\. )$/.test(out)) {
        seen = out.length;
        child.stdin.write(`${input[sent++]}\n`);
      }
      if (sent === input.length) {
        clearInterval(timer);
        child.stdin.end();
      }
    }, 20);
    child.on("error", reject);
    child.on("exit", () => {
      clearInterval(timer);
      resolve(out);
    });
  });
}

describe("runbound console", () => {
  it("lists tools, reads, writes after a permission card answered at the terminal, and exits", async () => {
    const workdir = await workdirWith({ "a.txt": "alpha\n" });
    const out = await consoleSession(workdir, [
      "tools",
      "read path=a.txt",
      'write {"path": "b.txt", "content": "beta\\n"}',
      "1",
      "apply_patch patch=<<",
      "*** Begin Patch",
      "*** Update File: a.txt",
      "-alpha",
      "+ALPHA",
      "*** End Patch",
      ".",
      "3",
      "write path='my notes.txt' content='two words, \"quoted\"'",
      "1",
      // The line of the report: its description became "'print" and a card was shown for a call then refused.
      "eval code='print(40+2)' description='print the sum of two small numbers'",
      "1",
      "eval code='print(1)' description=sum",
      "surface plan",
      "write path=c.txt content=x",
      "exit",
    ]);
    expect(out).toContain("runbound console — workdir");
    expect(out).toMatch(/ {2}apply_patch +Apply a patch/);
    expect(out).toContain("1\talpha");
    expect(out).toContain("── permission p1 · console ──\nAllow write to write b.txt (1 line)?");
    expect(out).toContain("Created b.txt (1 line, 5 bytes).");
    expect(out).toContain(
      "Not done: apply_patch needs approval on the full surface, and the person denied it.",
    );
    expect(out).toContain("now on plan");
    expect(out).toContain("write is not available on the plan surface");
    expect(await readFile(path.join(workdir, "b.txt"), "utf8")).toBe("beta\n");
    expect(await readFile(path.join(workdir, "a.txt"), "utf8")).toBe("alpha\n");
    // Quoted as in a shell: the value keeps its spaces and its inner quotes.
    expect(await readFile(path.join(workdir, "my notes.txt"), "utf8")).toBe('two words, "quoted"');
    expect(out).toContain(
      'Allow eval to run python code (1 line): print(40+2) — described as "print the sum of two small numbers"?',
    );
    expect(out).toMatch(/\n {4}42\n/);
    // A call its own rules refuse raises no card: the next card-free line answers at once.
    expect(out).toContain("`description` has 1 word; give 5-10 words");
    expect(out.match(/── permission p\d+ · console ──/g)).toHaveLength(4);
  });
});

describe("runbound console --worker", () => {
  it("turns on vibe_*: a worker runs the shell command with the brief on stdin, in the workdir", async () => {
    const workdir = await workdirWith({ "a.txt": "alpha\n" });
    const worker = 'printf "%s / %s" "$(cat)" "$(cat a.txt)"';
    const out = await consoleSession(
      workdir,
      ["vibe_spawn brief=hello label=greeter", "vibe_wait worker_id=w1 timeout_seconds=30", "exit"],
      "plan",
      ["--worker", worker],
    );
    expect(out).toContain('Started w1 "greeter" (fast).');
    expect(out).toContain("hello / alpha");
  });
});

describe("runbound console, piped input", () => {
  it("reads every line queued before the input ended, on this Node and on Nodes 22 and 24", () => {
    // The input ends before the first read, as a pipe into the console often does while the run is being created:
    // Node 24 throws on a prompt after that (ERR_USE_AFTER_CLOSE), and the console exited with its lines unread.
    const script = `
      import { PassThrough } from "node:stream";
      import { setTimeout as delay } from "node:timers/promises";
      import { LineReader } from ${JSON.stringify(path.join(ROOT, "src/questions/lines.ts"))};
      const input = new PassThrough();
      const reader = new LineReader(input, new PassThrough());
      input.end("read path=a.txt\\nexit\\n");
      await delay(50);
      const lines = [await reader.read("> "), await reader.read("> ")];
      const after = await reader.read("> ").catch((error) => error.message);
      console.log(JSON.stringify([...lines, after]));`;
    for (const node of [process.execPath, node22(), node24()]) {
      const ran = spawnSync(node, ["--import", "tsx/esm", "--input-type=module", "-e", script], {
        cwd: ROOT,
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(ran.stderr, node).toBe("");
      expect(JSON.parse(ran.stdout), node).toEqual([
        "read path=a.txt",
        "exit",
        "the terminal input closed before an answer",
      ]);
    }
  });
});

describe("runbound console, pasted input", () => {
  it("keeps lines typed ahead while a tool runs or a card waits (none is dropped)", async () => {
    const workdir = await workdirWith({ "a.txt": "alpha\n" });
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [path.join(ROOT, "bin/runbound.mjs"), "console", "--workdir", workdir],
        {
          cwd: ROOT,
          stdio: ["pipe", "pipe", "pipe"],
        },
      );
      let text = "";
      child.stdout.on("data", (d: Buffer) => {
        text += d.toString();
      });
      child.on("error", reject);
      child.on("exit", () => resolve(text));
      child.stdin.end(
        ["read path=a.txt", "write path=b.txt content=beta", "1", "read path=b.txt", "exit", ""].join("\n"),
      );
    });
    expect(out.match(/1\talpha/g)).toHaveLength(1);
    expect(out).toContain("Created b.txt (1 line, 4 bytes).");
    expect(out).toContain("1\tbeta");
  });
});

describe("console argument parsing", () => {
  const noMore = async () => {
    throw new Error("no more lines");
  };
  it("reads JSON objects, key=value pairs with JSON values, and refuses the rest with a reason", async () => {
    expect(await parseArguments('{"a": 1}', noMore)).toEqual({ value: { a: 1 } });
    expect(await parseArguments("path=a.txt offset=3 all=true", noMore)).toEqual({
      value: { path: "a.txt", offset: 3, all: true },
    });
    expect(await parseArguments("[1]", noMore)).toEqual({
      error: '"[1]" is not key=value; give JSON or key=value pairs (quote values with spaces)',
    });
    expect(await parseArguments("{oops", noMore)).toMatchObject({
      error: expect.stringMatching(/^arguments are not valid JSON/),
    });
  });

  it("splits a line as a shell does: quotes keep spaces, quotes inside quotes, escapes, JSON values, no $ expansion", async () => {
    // The example `help` gives.
    expect(await parseArguments('key="say \\"hi\\""', noMore)).toEqual({ value: { key: 'say "hi"' } });
    expect(
      await parseArguments("code='print(1+1)' description='print the sum of two small numbers'", noMore),
    ).toEqual({
      value: { code: "print(1+1)", description: "print the sum of two small numbers" },
    });
    expect(
      await parseArguments(`code="print(\\"it's\\")" note='say "hi"' path=my\\ file.txt`, noMore),
    ).toEqual({
      value: { code: `print("it's")`, note: 'say "hi"', path: "my file.txt" },
    });
    expect(await parseArguments(`lines='[3, 4]' pattern='print($X)' line=4`, noMore)).toEqual({
      value: { lines: [3, 4], pattern: "print($X)", line: 4 },
    });
    expect(await parseArguments("code='unclosed", noMore)).toEqual({ error: "a single quote is not closed" });
  });
});

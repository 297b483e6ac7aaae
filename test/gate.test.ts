import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type ApprovalDecision,
  type ApprovalRequest,
  type Approver,
  createRun,
  defineTool,
  ProgrammaticQuestionPort,
  type QuestionCard,
  renderCard,
} from "../src/index.js";
import { call, textOf, track, treeOf, workdirWith } from "./helpers.js";

const writeArgs = { path: "new.txt", content: "hello\n" };

/** A run whose approver records every request and answers it with `decide`'s decision. */
async function recordingRun(
  decide: (request: ApprovalRequest) => ApprovalDecision,
  files: Record<string, string> = {},
) {
  const workdir = await workdirWith(files);
  const seen: ApprovalRequest[] = [];
  const run = track(
    await createRun({
      workdir,
      conversationId: "gate",
      approver: async (request) => {
        seen.push(request);
        return decide(request);
      },
    }),
  );
  return { workdir, seen, run };
}

/** A run whose approver records every request and denies it with `reason`. */
const denyingRun = (reason: string) => recordingRun(() => ({ allow: false, reason }));

describe("the approval gate on the full surface", () => {
  it("a call its tool's own rules refuse is refused before anyone is asked (a person saw a card, then the refusal)", async () => {
    const { seen, run } = await denyingRun("denied");
    const client = await run.link({ surface: "full" });
    const cell = await call(client, "eval", { code: "print(1+1)", description: "sum" });
    expect(textOf(cell)).toBe(
      '`description` has 1 word; give 5-10 words saying what the cell does, e.g. "load the sales table and count rows".',
    );
    expect(textOf(await call(client, "debug", { operation: "launch" }))).toBe(
      "launch needs `program` (what to run).",
    );
    expect(textOf(await call(client, "debug", { operation: "breakpoints", file: "a.py" }))).toBe(
      "breakpoints with `file` needs `lines` (1-based lines; [] clears the file) or `breakpoints` (lines with a condition, hit_condition or log_message).",
    );
    expect(seen).toEqual([]);
    // A call that passes its rules is the one put to the approver.
    await call(client, "eval", { code: "print(1+1)", description: "print the sum of two small numbers" });
    expect(seen.map((r) => r.tool)).toEqual(["eval"]);
  });

  it("write, edit, apply_patch, ast_edit, resolve and lsp_rename refuse what their own rules would before anyone is asked", async () => {
    const files = {
      "a.py": "def load():\n    return 1\n\n\nx = load()\n",
      "pyproject.toml": "[project]\n",
      "dir/b.txt": "b\n",
    };
    // ast_edit is let through (to stage an edit for resolve); everything else put to it is denied.
    const { workdir, seen, run } = await recordingRun(
      (request) => (request.tool === "ast_edit" ? { allow: true } : { allow: false, reason: "denied" }),
      files,
    );
    const client = await run.link({ surface: "full" });
    const refused = async (tool: string, args: Record<string, unknown>) => {
      const result = await call(client, tool, args);
      expect(result.isError, `${tool}: ${textOf(result)}`).toBe(true);
      return textOf(result);
    };
    expect(await refused("write", { path: "dir", content: "x" })).toBe(
      "dir is a directory; give a file path to write.",
    );
    expect(await refused("edit", { path: "a.py", old_string: "def lode", new_string: "def load" })).toMatch(
      /^`old_string` was not found in a\.py/,
    );
    expect(await refused("edit", { path: "a.py", old_string: "load", new_string: "read" })).toMatch(
      /^`old_string` occurs 2 times in a\.py \(lines 1, 5\)/,
    );
    expect(
      await refused("apply_patch", {
        patch: "*** Begin Patch\n*** Update File: a.py\n@@\n-def lode():\n+def read():\n*** End Patch",
      }),
    ).toMatch(/^hunk 1 of a\.py does not match the file/);
    expect(await refused("ast_edit", { pattern: "load()", rewrite: "$X()", language: "python" })).toBe(
      "`rewrite` uses $X, which the pattern does not bind (it binds nothing). Nothing was staged.",
    );
    expect(await refused("resolve", { edit_id: "edit_9", action: "accept" })).toBe(
      'There is no staged edit "edit_9". Staged now: none (ast_edit stages one).',
    );
    expect(await refused("lsp_rename", { file: "a.py", line: 2, symbol: "load", new_name: "read" })).toMatch(
      /^`symbol` "load" is not on line 2, which reads: `return 1`\. It occurs on lines 1, 5/,
    );
    expect(await refused("lsp_rename", { file: "a.py", line: 1, symbol: "load", new_name: "class" })).toMatch(
      /^`new_name` "class" /,
    );
    expect(await refused("lsp_rename", { file: "a.py", new_path: "dir/b.txt" })).toBe(
      "`new_path` dir/b.txt exists; lsp_rename does not overwrite. Nothing was moved.",
    );
    expect(seen.map((r) => r.tool)).toEqual([]);
    // A staged edit whose file changed since is refused before the approver hears of the accept.
    const staged = await call(client, "ast_edit", {
      pattern: "load()",
      rewrite: "read()",
      language: "python",
    });
    expect(textOf(staged)).toMatch(/edit_id "edit_1"/);
    await writeFile(path.join(workdir, "a.py"), "def load():\n    return 2\n\n\nx = load()\n");
    expect(await refused("resolve", { edit_id: "edit_1", action: "accept" })).toBe(
      "a.py changed on disk after edit_1 was staged, so accepting it would undo that change. Nothing was changed: run ast_edit again to stage a fresh edit, or discard edit_1.",
    );
    expect(seen.map((r) => r.tool)).toEqual(["ast_edit"]);
    expect(await treeOf(workdir)).toEqual({
      ...files,
      "a.py": "def load():\n    return 2\n\n\nx = load()\n",
    });
    // Calls that pass their rules are the ones put to the approver (and denied here).
    expect(await refused("write", { path: "new.txt", content: "x" })).toMatch(
      /^Not done: write needs approval/,
    );
    expect(seen.map((r) => r.tool)).toEqual(["ast_edit", "write"]);
  });

  it("fails closed with no approver and no question port: nothing is written, and the error says why", async () => {
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, conversationId: "c" }));
    const result = await call(await run.link({ surface: "full" }), "write", writeArgs);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /^Not done: write needs approval on the full surface, and this run has no approver and no question port/,
    );
    expect(textOf(result)).toContain('approver: "always"');
    expect(existsSync(path.join(workdir, "new.txt"))).toBe(false);
  });

  it('approver: "always" lets write-tier calls through without asking', async () => {
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, approver: "always" }));
    const result = await call(await run.link({ surface: "full" }), "write", writeArgs);
    expect(result.isError).toBeFalsy();
    expect(await treeOf(workdir)).toEqual({ "new.txt": "hello\n" });
  });

  it("an approver function sees what the call would do, and its denial reaches the model", async () => {
    const { workdir, seen, run } = await denyingRun("policy forbids writes on Fridays");
    const result = await call(await run.link({ surface: "full" }), "write", writeArgs);
    expect(textOf(result)).toBe(
      "Not done: write needs approval on the full surface, and policy forbids writes on Fridays. Do not retry the same call.",
    );
    expect(seen).toEqual([
      {
        tool: "write",
        title: "Write a file",
        tier: "write",
        surface: "full",
        caller: "model",
        summary: "write new.txt (1 line)",
        arguments: writeArgs,
      },
    ]);
    expect(await treeOf(workdir)).toEqual({});
  });

  it("an eval approval carries the code itself, clipped with a count, and the call's arguments", async () => {
    const { seen, run } = await denyingRun("not now");
    const code = `import os\nprint(os.environ["OPENAI_API_KEY"])\n${"x = 1\n".repeat(100)}`;
    const args = { code, description: "print a few harmless numbers for you" };
    await call(await run.link({ surface: "full" }), "eval", args);
    expect(seen[0]?.arguments).toEqual(args);
    expect(seen[0]?.summary).toMatch(
      /^run python code \(102 lines\): import os ⏎ print\(os\.environ\["OPENAI_API_KEY"\]\) ⏎ x = 1 ⏎ .*… \(\+[\d,]+ characters\) — described as "print a few harmless numbers for you"$/,
    );
  });

  it("only allow: true allows; a denial without a reason still reads as a sentence", async () => {
    for (const answer of [{ allow: "no" }, { allow: 1 }, {}, null, "yes"]) {
      const workdir = await workdirWith();
      const approver = (async () => answer) as unknown as Approver;
      const run = track(await createRun({ workdir, approver }));
      const result = await call(await run.link({ surface: "full" }), "write", writeArgs);
      expect(textOf(result), JSON.stringify(answer)).toMatch(
        /^Not done: write needs approval on the full surface, and the approver's answer was not an approval \(only `allow: true` approves; it gave .*\)\. Do not retry the same call\.$/,
      );
      expect(await treeOf(workdir)).toEqual({});
    }
    const workdir = await workdirWith();
    const run = track(
      await createRun({ workdir, approver: (async () => ({ allow: false })) as unknown as Approver }),
    );
    expect(textOf(await call(await run.link({ surface: "full" }), "write", writeArgs))).toBe(
      "Not done: write needs approval on the full surface, and the approver denied it without giving a reason. Do not retry the same call.",
    );
  });

  it("controls, bidi and zero-width characters in what a person is shown are escaped visibly", async () => {
    const workdir = await workdirWith();
    const port = new ProgrammaticQuestionPort();
    const cards: QuestionCard[] = [];
    port.onQuestion((q) => {
      cards.push(q.card);
      q.answer({ choices: [3] });
    });
    const seen: string[] = [];
    const run = track(
      await createRun({
        workdir,
        conversationId: "c",
        questions: port,
        approver: async (request) => {
          seen.push(request.summary);
          return { allow: false, reason: "no" };
        },
      }),
    );
    const client = await run.link({ surface: "full" });
    // An ANSI "erase line" and a carriage return would show only "src/app.ts" on a terminal.
    await call(client, "write", { path: "evil.sh\u001b[2K\rsrc/app.ts", content: "x" });
    expect(seen[0]).toBe("write evil.sh\\u{1B}[2K\\u{D}src/app.ts (1 line)");
    await call(client, "ask_user", {
      question: "Delete \u202Egpj.exe\u202C?\nReally?",
      options: [{ label: "ye\u200Bs", description: "tab\there" }, { label: "no" }],
    });
    expect(cards[0]?.question).toBe("Delete \\u{202E}gpj.exe\\u{202C}?\nReally?");
    expect(cards[0]?.options).toEqual([
      { label: "ye\\u{200B}s", description: "tab\\u{9}here" },
      { label: "no" },
    ]);
    for (const hidden of ["\u001b", "\u202E", "\u200B"]) expect(renderCard(cards[0]!)).not.toContain(hidden);
  });

  it("a permission card names its tier with the right article: a write-tier tool, an exec-tier tool", async () => {
    const workdir = await workdirWith({ "pyproject.toml": "[project]\n", "a.py": "print(1)\n" });
    const port = new ProgrammaticQuestionPort();
    const cards: QuestionCard[] = [];
    port.onQuestion((q) => {
      cards.push(q.card);
      q.answer({ choices: [3] });
    });
    const run = track(await createRun({ workdir, conversationId: "c", questions: port }));
    const client = await run.link({ surface: "full" });
    await call(client, "write", { path: "b.txt", content: "x" });
    await call(client, "debug", { operation: "launch", program: "a.py" });
    expect(cards.map((c) => c.context)).toEqual([
      "Write a file is a write-tier tool, called by the model on the full surface.",
      expect.stringMatching(/^.* is an exec-tier tool, called by the model on the full surface\.$/),
    ]);
  });

  it("read-tier calls never ask", async () => {
    const workdir = await workdirWith({ "a.txt": "a\n" });
    let asked = 0;
    const run = track(
      await createRun({ workdir, approver: async () => ({ allow: false, reason: String(++asked) }) }),
    );
    expect((await call(await run.link({ surface: "full" }), "read", { path: "a.txt" })).isError).toBeFalsy();
    expect(asked).toBe(0);
  });
});

describe("permission cards through the question port", () => {
  const setup = async () => {
    const workdir = await workdirWith();
    const port = new ProgrammaticQuestionPort();
    const replies: ({ choices?: number[]; text?: string } | "skip")[] = [];
    const cards: string[] = [];
    port.onQuestion((q) => {
      cards.push(`${q.card.kind}:${q.card.question}`);
      const reply = replies.shift();
      if (reply === "skip") q.skip();
      else if (reply) q.answer(reply);
    });
    const run = track(
      await createRun({ workdir, conversationId: "c", questions: { port, timeoutSeconds: 0.2 } }),
    );
    return { workdir, port, replies, cards, client: await run.link({ surface: "full" }) };
  };

  it("allow once asks again next time; allow for the run does not", async () => {
    const { client, replies, cards } = await setup();
    replies.push({ choices: [1] });
    expect((await call(client, "write", { path: "a.txt", content: "1" })).isError).toBeFalsy();
    replies.push({ choices: [2] });
    expect((await call(client, "write", { path: "b.txt", content: "2" })).isError).toBeFalsy();
    expect((await call(client, "write", { path: "c.txt", content: "3" })).isError).toBeFalsy();
    expect(cards).toEqual([
      "permission:Allow write to write a.txt (1 line)?",
      "permission:Allow write to write b.txt (1 line)?",
    ]);
  });

  it("deny, a typed reason, a skip, a timeout and an absent person all leave the disk untouched", async () => {
    const { client, replies, workdir, port } = await setup();
    replies.push({ choices: [3] });
    expect(textOf(await call(client, "write", writeArgs))).toContain("and the person denied it.");
    replies.push({ text: "use the staging folder" });
    expect(textOf(await call(client, "write", writeArgs))).toContain(
      'the person denied it, saying: "use the staging folder"',
    );
    replies.push("skip");
    expect(textOf(await call(client, "write", writeArgs))).toContain(
      "the person skipped the permission card (a skip is not consent)",
    );
    expect(textOf(await call(client, "write", writeArgs))).toContain(
      "nobody answered the permission card within 0.2 seconds",
    );
    port.setConnected(false);
    expect(textOf(await call(client, "write", writeArgs))).toContain("no person is connected to approve it");
    expect(await treeOf(workdir)).toEqual({});
  });
});

describe("dispatch", () => {
  const probeTool = (name: string, parallelSafe: boolean, log: string[]) =>
    defineTool({
      name,
      title: name,
      tier: "read",
      needs: [],
      parallelSafe,
      description: "test probe",
      input: { id: z.string() },
      output: { id: z.string() },
      run: async (args) => {
        log.push(`start ${args.id}`);
        await new Promise((r) => setTimeout(r, 30));
        log.push(`end ${args.id}`);
        return { text: args.id, structured: { id: args.id } };
      },
    });

  it("serializes calls of a non-parallel-safe tool per run, and lets parallel-safe ones overlap", async () => {
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir }));
    const serial: string[] = [];
    const parallel: string[] = [];
    run.registerTool(probeTool("serial", false, serial));
    run.registerTool(probeTool("parallel", true, parallel));
    const client = await run.link({ surface: "readonly" });
    await Promise.all(["1", "2", "3"].map((id) => call(client, "serial", { id })));
    await Promise.all(["1", "2", "3"].map((id) => call(client, "parallel", { id })));
    expect(serial).toEqual(["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"]);
    expect(parallel.slice(0, 3)).toEqual(["start 1", "start 2", "start 3"]);
  });

  it("a client's cancel aborts the handler's signal", async () => {
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir }));
    let sawAbort: (() => void) | undefined;
    const aborted = new Promise<void>((resolve) => {
      sawAbort = resolve;
    });
    run.registerTool(
      defineTool({
        name: "slow",
        title: "slow",
        tier: "read",
        needs: [],
        parallelSafe: true,
        description: "waits until cancelled",
        input: {},
        output: {},
        run: (_args, ctx) =>
          new Promise((_, reject) => {
            ctx.signal.addEventListener("abort", () => {
              sawAbort?.();
              reject(ctx.signal.reason);
            });
          }),
      }),
    );
    const client = await run.link({ surface: "readonly" });
    const controller = new AbortController();
    const pending = client.callTool(
      { name: "slow", arguments: {} },
      {
        signal: controller.signal,
      },
    );
    await new Promise((r) => setTimeout(r, 20));
    controller.abort("the user pressed stop");
    await expect(pending).rejects.toThrow();
    await aborted;
  });

  it("progress notifications reach the client that asked for them", async () => {
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir }));
    run.registerTool(
      defineTool({
        name: "steps",
        title: "steps",
        tier: "read",
        needs: [],
        parallelSafe: true,
        description: "reports progress",
        input: {},
        output: {},
        run: async (_args, ctx) => {
          for (let i = 1; i <= 3; i++) await ctx.progress({ progress: i, total: 3, message: `step ${i}` });
          return { text: "done", structured: {} };
        },
      }),
    );
    const client = await run.link({ surface: "readonly" });
    const seen: string[] = [];
    await client.callTool(
      { name: "steps", arguments: {} },
      {
        onprogress: (p) => seen.push(`${p.progress}/${p.total} ${p.message}`),
      },
    );
    expect(seen).toEqual(["1/3 step 1", "2/3 step 2", "3/3 step 3"]);
  });

  it("bad arguments name the argument and what the tool takes, and suggest the near miss", async () => {
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, approver: "always" }));
    const client = await run.link({ surface: "full" });
    expect(textOf(await call(client, "write", { path: "a.txt", contents: "x" }))).toBe(
      "Invalid arguments for write:\n- `content` is required (string)\n- unknown argument `contents` (did you mean `content`?)\nwrite takes: path, content. Nothing was done.",
    );
    expect(textOf(await call(client, "read", { path: "a.txt", offset: 0 }))).toMatch(
      /^Invalid arguments for read:\n- `offset`: Too small/,
    );
    expect(await treeOf(workdir)).toEqual({});
  });

  it("a handler that throws, or returns output off its schema, is reported as runbound's fault", async () => {
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir }));
    const base = {
      title: "t",
      tier: "read",
      needs: [],
      parallelSafe: true,
      description: "d",
      input: {},
    } as const;
    run.registerTool(
      defineTool({
        ...base,
        name: "crash",
        output: {},
        run: async () => {
          throw new Error("disk on fire");
        },
      }),
    );
    run.registerTool(
      defineTool({
        ...base,
        name: "liar",
        output: { n: z.number() },
        run: async () => ({ text: "", structured: { n: "one" as unknown as number } }),
      }),
    );
    const client = await run.link({ surface: "readonly" });
    expect(textOf(await call(client, "crash", {}))).toMatch(
      /^crash failed inside runbound: disk on fire\. This is a fault of runbound/,
    );
    expect(textOf(await call(client, "liar", {}))).toMatch(
      /^liar failed inside runbound: its result does not match its own output schema \(data\/n must be number\)/,
    );
  });
});

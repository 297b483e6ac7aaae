import { execFile, execFileSync } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import type { LanguageModelV2CallOptions, LanguageModelV2Content } from "@ai-sdk/provider-v2";
import { getAllMcpTools, RunContext } from "@openai/agents";
import { MockLanguageModelV2 } from "ai-v5/test";
import { describe, expect, it } from "vitest";
import { runAgent } from "../examples/ai-sdk-agent.js";
import { RunboundMcpServer } from "../src/adapters/openai-agents.js";
import { createRun, ProgrammaticQuestionPort } from "../src/index.js";
import { HOME, track, workdirWith, workspaceCopy } from "./helpers.js";

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
// The example's command line, as a person runs it.
const script = path.resolve(import.meta.dirname, "../examples/ai-sdk-agent.ts");
const tsx = path.resolve(import.meta.dirname, "../node_modules/.bin/tsx");

/** A model that plays a fixed script of turns, and records the tools it was offered and the prompts it saw. */
function scripted(turns: ((prompt: string) => LanguageModelV2Content[])[]) {
  const offered: string[][] = [];
  let turn = 0;
  const model = new MockLanguageModelV2({
    doGenerate: async (options: LanguageModelV2CallOptions) => {
      offered.push((options.tools ?? []).map((t) => t.name).sort());
      const content = turns[turn++]?.(JSON.stringify(options.prompt)) ?? [
        { type: "text", text: "(script ended)" },
      ];
      const calls = content.some((c) => c.type === "tool-call");
      return { content, finishReason: calls ? "tool-calls" : "stop", usage, warnings: [] };
    },
  });
  return { model, offered };
}

const callTool = (id: string, toolName: string, input: Record<string, unknown>): LanguageModelV2Content => ({
  type: "tool-call",
  toolCallId: id,
  toolName,
  input: JSON.stringify(input),
});

describe("examples/ai-sdk-agent", () => {
  it("a model writes a file and reads it back through a full link, and answers from what it read", async () => {
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, approver: "always", lsp: false }));
    const { model } = scripted([
      () => [callTool("c1", "write", { path: "notes/todo.md", content: "- ship it\n" })],
      () => [callTool("c2", "read", { path: "notes/todo.md" })],
      (prompt) => [
        { type: "text", text: prompt.includes("ship it") ? "the todo says: ship it" : "no todo seen" },
      ],
    ]);
    const answer = await runAgent({ run, model, prompt: "write a todo and check it" });
    expect(answer).toEqual({ text: "the todo says: ship it", toolCalls: ["write", "read"] });
    expect(await readFile(path.join(workdir, "notes/todo.md"), "utf8")).toBe("- ship it\n");
  });

  it("on the plan surface it is an explorer: offered no write or exec tool, and can still read", async () => {
    const workdir = await workdirWith({ "a.py": "x = 1\n" });
    const run = track(await createRun({ workdir, approver: "always", lsp: false }));
    const { model, offered } = scripted([
      () => [callTool("c1", "read", { path: "a.py" })],
      (prompt) => [{ type: "text", text: prompt.includes("x = 1") ? "a.py sets x" : "unseen" }],
    ]);
    const answer = await runAgent({ run, model, prompt: "what does a.py do?", surface: "plan" });
    expect(answer.text).toBe("a.py sets x");
    expect(offered[0]).toEqual(run.tools("plan").sort());
    for (const name of ["write", "edit", "apply_patch", "eval", "debug", "ast_edit", "lsp_rename"]) {
      expect(offered[0]).not.toContain(name);
    }
    expect(offered[0]).toContain("read");
  });

  it("an agent fixes a failing notebook cell: notebook → notebook_run → notebook_edit → notebook_run", async () => {
    const ws = await workspaceCopy();
    const run = track(await createRun({ workdir: ws.dir, approver: "always", lsp: false }));
    const book = "python/stock-report.ipynb";
    const { model } = scripted([
      () => [callTool("c1", "notebook", { path: book })],
      () => [callTool("c2", "notebook_run", { path: book })],
      // The model reads the error and the cell it came from, and fixes the count.
      (prompt) => {
        const left = /only (\d+) of B2 left/.exec(prompt)?.[1] ?? "3";
        const cell = /── cell (\d+) \(id \w+\) In \[\d+\]: error/.exec(prompt)?.[1] ?? "0";
        return [
          callTool("c3", "notebook_edit", {
            path: book,
            action: "replace",
            index: Number(cell),
            source: `stock.remove("B2", ${left})  # the chairs sold this week`,
          }),
        ];
      },
      () => [callTool("c4", "notebook_run", { path: book, cells: "3-" })],
      (prompt) => [
        { type: "text", text: /value \d+\.\d+/.exec(prompt.replaceAll("\\n", "\n"))?.[0] ?? "no value" },
      ],
    ]);
    const answer = await runAgent({
      run,
      model,
      prompt: "The stock report notebook fails; fix it and run it.",
    });
    expect(answer.toolCalls).toEqual(["notebook", "notebook_run", "notebook_edit", "notebook_run"]);
    expect(answer.text).toBe("value 75.0");
    const file = path.join(ws.dir, book);
    const cells = JSON.parse(await readFile(file, "utf8")).cells;
    expect(cells[2].source).toEqual(['stock.remove("B2", 2)  # the chairs sold this week']);
    expect(cells[2].outputs).toEqual([]);
    expect(cells[3].outputs).toEqual([{ name: "stdout", output_type: "stream", text: ["value 75.0\n"] }]);
    expect(cells.map((c: { execution_count?: number | null }) => c.execution_count)).toEqual([
      undefined,
      1,
      3,
      4,
    ]);
    // Jupyter's own library reads it back: valid, and exactly the bytes it would write.
    const check = JSON.parse(
      execFileSync(HOME.python, [path.resolve(import.meta.dirname, "notebooks/nbcheck.py"), file], {
        encoding: "utf8",
      }),
    );
    expect(check).toEqual([{ file, valid: true, error: null, as_nbformat_writes: true }]);
    await ws.remove();
  });

  it("a scripted conversation on examples/workspace: lsp, ast_grep → ast_edit → resolve, eval, ask_user", async () => {
    const ws = await workspaceCopy();
    const person = new ProgrammaticQuestionPort();
    person.onQuestion((q) => q.answer({ choices: [2] }));
    const run = track(
      await createRun({ workdir: ws.dir, conversationId: "example", approver: "always", questions: person }),
    );
    const { model } = scripted([
      () => [
        callTool("c1", "lsp", { action: "definition", file: "ts/src/main.ts", line: 4, symbol: "stock.add" }),
      ],
      () => [callTool("c2", "ast_grep", { pattern: "fmt.Println($$$ARGS)", path: "go", language: "go" })],
      () => [
        callTool("c3", "ast_edit", {
          pattern: "fmt.Println($$$ARGS)",
          rewrite: "log.Println($$$ARGS)",
          path: "go",
          language: "go",
        }),
      ],
      (prompt) => [
        callTool("c4", "resolve", { edit_id: /edit_\d+/.exec(prompt)?.[0] ?? "none", action: "accept" }),
      ],
      () => [
        callTool("c5", "eval", { code: "2 ** 10", description: "check the arithmetic the report needs" }),
      ],
      () => [
        callTool("c6", "ask_user", {
          question: "Which logger should the Go code use?",
          options: [{ label: "fmt" }, { label: "log" }],
        }),
      ],
      (prompt) => [{ type: "text", text: prompt }],
    ]);
    const answer = await runAgent({ run, model, prompt: "Move the Go code to the log package" });
    expect(answer.toolCalls).toEqual(["lsp", "ast_grep", "ast_edit", "resolve", "eval", "ask_user"]);
    const seen = answer.text;
    // What the model read back, tool by tool: relative paths and 1-based lines, the staged edit applied with the
    // language server's new diagnostics, the kernel's value, the person's choice.
    expect(seen).toContain("ts/src/stock.ts:11  add(item: Item, count = 1): void {");
    expect(seen).toContain("2 matches in 1 file");
    expect(seen).toContain("Applied edit_1: 2 replacements in 1 file.");
    expect(seen).toContain("go/main.go:9, 11 error: undefined: log");
    expect(seen).toContain('"value":"1024"');
    expect(seen).toContain("The person answered: 2. log");
    expect(await readFile(path.join(ws.dir, "go/main.go"), "utf8")).toContain("log.Println(");
    expect(await readFile(path.join(ws.dir, "go/main.go"), "utf8")).not.toContain("fmt.Println(");
    await ws.remove();
  });

  it("runs from the command line against an OpenAI-compatible endpoint (a local stand-in here), on a workspace copy", async () => {
    const bodies: {
      messages: { role: string; content: unknown }[];
      tools?: { function: { name: string } }[];
    }[] = [];
    const server = createServer(async (req, res) => {
      let raw = "";
      for await (const chunk of req) raw += chunk;
      const body = JSON.parse(raw);
      bodies.push(body);
      const message =
        bodies.length === 1
          ? {
              role: "assistant",
              content: null,
              tool_calls: [
                { id: "c1", type: "function", function: { name: "read", arguments: '{"path":"README.md"}' } },
              ],
            }
          : { role: "assistant", content: "read the workspace README" };
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          id: `r${bodies.length}`,
          object: "chat.completion",
          created: 0,
          model: "stand-in",
          choices: [{ index: 0, message, finish_reason: bodies.length === 1 ? "tool_calls" : "stop" }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const { stdout } = await promisify(execFile)(tsx, [script, "--plan", "What is this workspace?"], {
        env: {
          ...process.env,
          OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
          OPENAI_API_KEY: "k",
          OPENAI_MODEL: "stand-in",
        },
        timeout: 60_000,
      });
      // The example keeps its copy for the person who ran it to look at; the test does not.
      const copy = /^working in (\S+) on the/m.exec(stdout)?.[1];
      if (copy) await rm(copy, { recursive: true, force: true });
      expect(stdout).toMatch(/on the plan surface\n· read\n\nread the workspace README\n$/);
      const offered = bodies[0]?.tools?.map((t) => t.function.name) ?? [];
      expect(offered).toContain("read");
      expect(offered).not.toContain("write");
      const toolResult = bodies[1]?.messages.find((m) => m.role === "tool");
      expect(JSON.stringify(toolResult?.content)).toContain("runbound");
    } finally {
      server.close();
    }
  });

  it("from the command line, says what is missing when the endpoint is not configured", async () => {
    const env = { ...process.env, OPENAI_BASE_URL: "", OPENAI_MODEL: "" };
    const failed = await promisify(execFile)(tsx, [script, "a task"], { env }).catch((e: unknown) => e);
    expect(failed).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("missing: OPENAI_BASE_URL, OPENAI_MODEL"),
    });
  });
});

describe("runbound/openai-agents in the Agents SDK", () => {
  it("the Agents SDK lists the run's tools for the surface over a link, and its function tool calls through the gate", async () => {
    const workdir = await workdirWith({ "a.txt": "alpha\n" });
    const run = track(await createRun({ workdir, lsp: false }));
    const server = new RunboundMcpServer(run, "plan");
    await server.connect();
    try {
      const tools = await getAllMcpTools([server]);
      const names = tools.map((t) => t.name).sort();
      expect(names).toEqual(run.tools("plan").sort());
      const read = tools.find((t) => t.name === "read");
      if (read?.type !== "function") throw new Error("read is not a function tool");
      const output = await read.invoke(new RunContext(), JSON.stringify({ path: "a.txt" }));
      expect(JSON.stringify(output)).toContain("alpha");
    } finally {
      await server.close();
    }
  });
});

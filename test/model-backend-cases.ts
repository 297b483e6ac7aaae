/**
 * The model backend and aiSdkTools against one AI SDK major, with that SDK's own mock model: shared by the files
 * that run them on AI SDK 6 (what `ai` resolves to here) and on AI SDK 5 (`ai` mocked to the real `ai@5`).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { expect, it } from "vitest";
import { aiSdkTools, createRun, modelBackend } from "../src/index.js";
import { CANCELLABLE_LOOP, call, LOOP_FINISHED, loopStarted, track, workdirWith } from "./helpers.js";

/** One model turn: a tool call or a final text. */
export type Turn = { call: { id: string; tool: string; input: Record<string, unknown> } } | { text: string };

/** A mock model of the SDK under test that plays `turns`, each chosen from the prompt and the tools it was sent. */
export type ScriptedModel = (turns: ((prompt: string, tools: string[]) => Turn)[]) => {
  readonly specificationVersion: string;
  readonly provider: string;
  readonly modelId: string;
};

/** A turn's content, in the shape spec v2 and v3 share. */
export function turnContent(turn: Turn) {
  if ("text" in turn) return [{ type: "text" as const, text: turn.text }];
  const { id, tool, input } = turn.call;
  return [{ type: "tool-call" as const, toolCallId: id, toolName: tool, input: JSON.stringify(input) }];
}

const PLOT = `import matplotlib.pyplot as plt
plt.plot([1, 2, 3], [1, 4, 9])
plt.show()`;

export function modelBackendCases(sdk: string, scripted: ScriptedModel, generate: GenerateText): void {
  it(`on ${sdk}, aborting generateText interrupts the eval cell it waits on, and the kernel answers the next`, async () => {
    const model = scripted([
      () => ({
        call: {
          id: "c1",
          tool: "eval",
          input: {
            code: CANCELLABLE_LOOP,
            description: "loop until the harness cancels the call",
          },
        },
      }),
      () => ({ text: "done" }),
    ]);
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, lsp: false, approver: "always" }));
    const client = await run.link({ surface: "full" });
    const abort = new AbortController();
    const generating = generate({
      model,
      tools: await aiSdkTools(client),
      prompt: "loop",
      abortSignal: abort.signal,
    });
    generating.catch(() => undefined);
    // The cell runs once its file is there; then the harness cancels.
    await loopStarted(workdir);
    abort.abort();
    await expect(generating).rejects.toThrow();
    // The loop was interrupted (the kernel keeps its state), so it never finished: the next cell ran at once. Before,
    // the cancel was dropped, the next cell queued behind the loop, and the loop finished.
    const next = await call(client, "eval", {
      code: LOOP_FINISHED,
      description: "check whether the loop ran to its end",
    });
    expect(next.structuredContent, JSON.stringify(next.content)).toMatchObject({ status: "ok" });
    expect((next.structuredContent as { output: string }).output.trim()).toBe("False");
  }, 120_000);

  it(`a worker on ${sdk}'s mock model reads through the run, offered no more than its plan surface`, async () => {
    const offered: string[][] = [];
    const model = scripted([
      (_, tools) => {
        offered.push(tools);
        return { call: { id: "c1", tool: "read", input: { path: "a.txt" } } };
      },
      (prompt) => ({ text: prompt.includes("alpha") ? "a.txt says alpha" : "did not see the file" }),
    ]);
    const workdir = await workdirWith({ "a.txt": "alpha\n" });
    const run = track(
      await createRun({ workdir, lsp: false, approver: "always", vibe: { fast: modelBackend(model) } }),
    );
    const plan = await run.link({ surface: "plan" });
    await call(plan, "vibe_spawn", { brief: "What does a.txt say?", label: "reader" });
    const waited = await call(plan, "vibe_wait", { worker_id: "w1", timeout_seconds: 30 });
    expect(waited.structuredContent).toMatchObject({
      worker: { status: "done", result: "a.txt says alpha" },
    });
    expect(offered[0]).toContain("read");
    expect(offered[0]).not.toContain("write");
  });

  it(`on ${sdk}, a worker's write passes the run's approver, which sees it as the worker's call`, async () => {
    const model = scripted([
      () => ({ call: { id: "c1", tool: "write", input: { path: "out.txt", content: "done\n" } } }),
      () => ({ text: "wrote it" }),
    ]);
    const asked: string[] = [];
    const workdir = await workdirWith();
    const run = track(
      await createRun({
        workdir,
        lsp: false,
        approver: async (request) => {
          asked.push(`${request.tool} by ${request.caller} on ${request.surface}`);
          return { allow: true };
        },
        vibe: { fast: modelBackend(model) },
      }),
    );
    const full = await run.link({ surface: "full" });
    await call(full, "vibe_spawn", { brief: "write out.txt", label: "writer" });
    const waited = await call(full, "vibe_wait", { worker_id: "w1", timeout_seconds: 30 });
    expect(waited.structuredContent).toMatchObject({ worker: { status: "done", result: "wrote it" } });
    expect(asked).toEqual(["write by worker on full"]);
    expect(await readFile(path.join(workdir, "out.txt"), "utf8")).toBe("done\n");
  });

  it(`on ${sdk}, a matplotlib plot from eval reaches the model as an image part, its text as text`, async () => {
    let seen = "";
    const model = scripted([
      () => ({
        call: {
          id: "c1",
          tool: "eval",
          input: { code: PLOT, description: "draw a small line plot of squares" },
        },
      }),
      (prompt) => {
        seen = prompt;
        return { text: "done" };
      },
    ]);
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, lsp: false, approver: "always" }));
    const client = await run.link({ surface: "full" });
    await generate({ model, tools: await aiSdkTools(client), prompt: "plot it" });
    const prompt = JSON.parse(seen) as { role: string; content: { type: string; output?: unknown }[] }[];
    const result = prompt.flatMap((m) => m.content).find((part) => part.type === "tool-result");
    const output = result?.output as { type: string; value: { type: string; [k: string]: unknown }[] };
    expect(output.type).toBe("content");
    expect(output.value.map((part) => part.type)).toEqual([
      "text",
      sdk === "AI SDK 5" ? "media" : "image-data",
    ]);
    expect(output.value[0]).toMatchObject({ text: "(1 image below)" });
    expect(output.value[1]).toMatchObject({ mediaType: "image/png" });
    // The PNG itself, base64: its signature, not a placeholder.
    expect(String(output.value[1]?.data)).toMatch(/^iVBORw0KGgo/);
    expect(seen).not.toContain("[image]");
  });
}

export type GenerateText = (options: {
  model: ReturnType<ScriptedModel>;
  tools: Awaited<ReturnType<typeof aiSdkTools>>;
  prompt: string;
  abortSignal?: AbortSignal;
}) => Promise<unknown>;

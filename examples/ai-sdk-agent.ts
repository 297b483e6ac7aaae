/**
 * A model on the Vercel AI SDK driving one runbound run through a private link.
 *
 *   const run = await createRun({ workdir, approver: "always" });
 *   const answer = await runAgent({ run, model: openai("gpt-5"), prompt: "Fix the failing test" });
 *
 * With `surface: "plan"` it is a plan-mode explorer: it can read, search, ask and delegate, never write or execute
 * (the surface is checked on every call, not only when tools are listed).
 */
import { cp, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import { generateText, stepCountIs } from "ai";
import { aiSdkTools, createRun, type Run, type Surface, TerminalQuestionPort } from "../src/index.js";

export interface AgentOptions {
  readonly run: Run;
  readonly model: LanguageModel;
  readonly prompt: string;
  readonly surface?: Surface;
  readonly system?: string;
  readonly maxSteps?: number;
  /** Sees every tool call as it happens (a harness would show it). */
  readonly onCall?: (name: string) => void;
}

export interface AgentAnswer {
  readonly text: string;
  readonly toolCalls: readonly string[];
}

export async function runAgent(options: AgentOptions): Promise<AgentAnswer> {
  const client = await options.run.link({
    surface: options.surface ?? "full",
    clientInfo: { name: "ai-sdk-agent", version: "1" },
  });
  const toolCalls: string[] = [];
  try {
    const tools = await aiSdkTools(client, (name) => {
      toolCalls.push(name);
      options.onCall?.(name);
    });
    const result = await generateText({
      model: options.model,
      tools,
      prompt: options.prompt,
      ...(options.system ? { system: options.system } : {}),
      stopWhen: stepCountIs(options.maxSteps ?? 30),
    });
    return { text: result.text, toolCalls };
  } finally {
    await client.close();
  }
}

/**
 * `npx tsx examples/ai-sdk-agent.ts [--plan] "task"`: runs the task on a copy of examples/workspace against any
 * OpenAI-compatible endpoint (OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL). Writes and runs are approved on
 * permission cards in this terminal; ask_user asks here too.
 */
async function main(argv: readonly string[]): Promise<number> {
  const plan = argv.includes("--plan");
  const task = argv.filter((a) => a !== "--plan").join(" ");
  const { OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: apiKey, OPENAI_MODEL: modelId } = process.env;
  if (!task || !baseURL || !modelId) {
    process.stderr.write(
      'usage: OPENAI_BASE_URL=https://… OPENAI_API_KEY=… OPENAI_MODEL=… npx tsx examples/ai-sdk-agent.ts [--plan] "task"\n' +
        `missing: ${[!task && "the task", !baseURL && "OPENAI_BASE_URL", !modelId && "OPENAI_MODEL"].filter(Boolean).join(", ")}\n`,
    );
    return 2;
  }
  const workdir = await mkdtemp(path.join(tmpdir(), "runbound-example-"));
  await cp(path.join(import.meta.dirname, "workspace"), workdir, { recursive: true });
  const questions = new TerminalQuestionPort();
  const run = await createRun({ workdir, conversationId: "example", questions });
  try {
    const provider = createOpenAICompatible({ name: "endpoint", baseURL, ...(apiKey ? { apiKey } : {}) });
    process.stdout.write(`working in ${workdir} on the ${plan ? "plan" : "full"} surface\n`);
    const answer = await runAgent({
      run,
      model: provider(modelId),
      prompt: task,
      surface: plan ? "plan" : "full",
      system: `You are a coding agent working in ${workdir}. Use the tools; paths are relative to it.`,
      onCall: (name) => process.stdout.write(`· ${name}\n`),
    });
    process.stdout.write(`\n${answer.text}\n`);
    return 0;
  } finally {
    await run.dispose();
    questions.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}

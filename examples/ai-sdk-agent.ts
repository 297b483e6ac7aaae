/**
 * A model on the Vercel AI SDK driving one runbound run through a private link.
 *
 *   const run = await createRun({ workdir, approver: "always" });
 *   const answer = await runAgent({ run, model: openai("gpt-5"), prompt: "Fix the failing test" });
 *
 * With `surface: "plan"` it is a plan-mode explorer: it can read, search, ask and delegate, never write or execute
 * (the surface is checked on every call, not only when tools are listed).
 */
import type { LanguageModel } from "ai";
import { generateText, stepCountIs } from "ai";
import { aiSdkTools, type Run, type Surface } from "../src/index.js";

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

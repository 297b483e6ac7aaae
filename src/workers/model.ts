/**
 * The model backend: an agent loop on the Vercel AI SDK with any LanguageModel. Its tools are those a link to the
 * same run lists on the surface of the call that spawned the worker — so a worker never sees more than its parent,
 * and its write/exec calls go through the same gate.
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { dynamicTool, generateText, jsonSchema, type LanguageModel, stepCountIs, type ToolSet } from "ai";
import type { WorkerBackend } from "./pool.js";

export interface ModelBackendOptions {
  /** Steps (model turns) before the worker must answer. Default 20. */
  readonly maxSteps?: number;
  readonly system?: string;
}

export function modelBackend(model: LanguageModel, options: ModelBackendOptions = {}): WorkerBackend {
  return {
    name: "model",
    start(brief, context) {
      const abort = new AbortController();
      const finished = (async () => {
        const client = await context.link();
        try {
          const toolset = await aiSdkTools(client, () => context.onActivity());
          const result = await generateText({
            model,
            tools: toolset,
            prompt: brief,
            ...(options.system ? { system: options.system } : {}),
            stopWhen: stepCountIs(options.maxSteps ?? 20),
            abortSignal: abort.signal,
            onStepFinish: () => context.onActivity(),
          });
          return { ok: true, result: result.text };
        } finally {
          await client.close().catch(() => undefined);
        }
      })();
      return {
        finished,
        stop: async () => {
          abort.abort();
          await finished.catch(() => undefined);
        },
      };
    },
  };
}

/**
 * The tools a link lists, as an AI SDK ToolSet: each call goes back through the link (and so through the gate);
 * the model reads the result's text blocks. `onCall` runs before each call (activity for workers).
 */
export async function aiSdkTools(
  client: Client,
  onCall: (name: string) => void = () => {},
): Promise<ToolSet> {
  const { tools } = await client.listTools();
  const toolset: ToolSet = {};
  for (const t of tools) {
    toolset[t.name] = dynamicTool({
      description: t.description ?? t.name,
      inputSchema: jsonSchema(t.inputSchema as Parameters<typeof jsonSchema>[0]),
      execute: async (input) => {
        onCall(t.name);
        const result = await client.callTool({ name: t.name, arguments: input as Record<string, unknown> });
        const content = result.content as { type: string; text?: string }[];
        return content.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("\n");
      },
    });
  }
  return toolset;
}

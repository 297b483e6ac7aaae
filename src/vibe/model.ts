/**
 * The model backend: an agent loop on the Vercel AI SDK with any language model. Its tools are those a link to the
 * same run lists on the surface of the call that spawned the worker — so a worker never sees more than its parent,
 * and its write/exec calls go through the same gate. The SDK is the harness's own (an optional peer: AI SDK 5, 6
 * or 7), loaded when a worker starts, so runbound imports without it.
 */

import type { ToolSet } from "ai";
import type { RunLink } from "../run-link.js";
import type { WorkerBackend } from "./pool.js";

/**
 * An AI SDK language model as its providers make them: specification v2 (AI SDK 5), v3 (AI SDK 6) or v4 (AI SDK 7).
 * Structural, so a model from any of those majors is accepted whichever the harness installed.
 */
export interface AiSdkLanguageModel {
  readonly specificationVersion: string;
  readonly provider: string;
  readonly modelId: string;
}

export interface ModelBackendOptions {
  /** Steps (model turns) before the worker must answer. Default 20. */
  readonly maxSteps?: number;
  readonly system?: string;
}

type AiSdk = typeof import("ai");

/** The harness's AI SDK, or an error that says how to get it. */
async function loadAiSdk(): Promise<AiSdk> {
  try {
    return await import("ai");
  } catch (error) {
    throw new Error(
      `the model backend runs on the AI SDK, which is not installed beside runbound (${(error as Error).message}). Install it: npm install ai (AI SDK 5, 6 or 7).`,
    );
  }
}

export function modelBackend(model: AiSdkLanguageModel, options: ModelBackendOptions = {}): WorkerBackend {
  return {
    name: "model",
    // Its tools come from a link on the spawning surface: it can do no more than that surface, on any surface.
    surfaces: ["full", "plan", "readonly"],
    start(brief, context) {
      const abort = new AbortController();
      const finished = (async () => {
        const ai = await loadAiSdk();
        const client = await context.link();
        try {
          const toolset = await aiSdkTools(client, () => context.onActivity());
          const result = await ai
            .generateText({
              model: model as Parameters<AiSdk["generateText"]>[0]["model"],
              tools: toolset,
              prompt: brief,
              ...(options.system ? { system: options.system } : {}),
              stopWhen: ai.stepCountIs(options.maxSteps ?? 20),
              abortSignal: abort.signal,
              onStepFinish: () => context.onActivity(),
            })
            .catch((error: Error) => {
              if (!/specification version/i.test(error.message)) throw error;
              throw new Error(
                `${error.message} — the model implements specification ${model.specificationVersion}; AI SDK 5 runs v2 models only, AI SDK 6 runs v2 and v3, AI SDK 7 runs v2, v3 and v4: install the AI SDK major that matches the provider.`,
              );
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

/** What a tool call hands to the model: the result's text blocks and its images, in order. */
interface CallOutput {
  readonly text: string;
  readonly images: readonly { readonly data: string; readonly mediaType: string }[];
}

/**
 * The tools a link lists, as an AI SDK ToolSet: each call goes back through the link (and so through the gate).
 * The model reads the result's text as text and its images as image parts (the SDK's `toModelOutput`), so a plot
 * from `eval` is seen, not described. `onCall` runs before each call (activity for workers).
 */
export async function aiSdkTools(
  client: RunLink,
  onCall: (name: string) => void = () => {},
): Promise<ToolSet> {
  const ai = await loadAiSdk();
  const imagePart = imagePartOf(ai);
  const { tools } = await client.listTools();
  const toolset: ToolSet = {};
  for (const t of tools) {
    toolset[t.name] = ai.dynamicTool({
      description: t.description ?? t.name,
      inputSchema: ai.jsonSchema(t.inputSchema as Parameters<AiSdk["jsonSchema"]>[0]),
      execute: async (input, options): Promise<CallOutput> => {
        onCall(t.name);
        const result = await client.callTool(
          { name: t.name, arguments: input as Record<string, unknown> },
          {
            // Cancelling the AI SDK's call (generateText's abortSignal) cancels the tool's: an eval cell is
            // interrupted, a debug launch withdrawn. It was dropped, and the cell ran on.
            ...(options?.abortSignal ? { signal: options.abortSignal } : {}),
            // A long cell or launch sends progress; each resets the client's 60 s request timeout.
            onprogress: () => {},
            resetTimeoutOnProgress: true,
          },
        );
        return callOutput(result.content as ContentBlock[]);
      },
      // AI SDK 5 passes the output itself; 6 and 7 pass { toolCallId, input, output }. The cast: one function
      // serves both signatures.
      toModelOutput: ((arg: unknown) => modelOutput(arg, imagePart)) as never,
    });
  }
  return toolset;
}

type ContentBlock = { type: string; text?: string; data?: string; mimeType?: string };

function callOutput(content: readonly ContentBlock[]): CallOutput {
  const text = content
    .filter((b) => b.type !== "image")
    .map((b) => (b.type === "text" ? (b.text ?? "") : `[${b.type}]`))
    .join("\n");
  const images = content
    .filter((b) => b.type === "image" && b.data && b.mimeType)
    .map((b) => ({ data: b.data!, mediaType: b.mimeType! }));
  return { text, images };
}

function isCallOutput(value: unknown): value is CallOutput {
  return typeof value === "object" && value !== null && "text" in value && "images" in value;
}

type ImagePart = "file" | "image-data" | "media";

/**
 * How this AI SDK takes an image in a tool's result, asked of its own message schema: `file` with `{ type: "data" }`
 * (AI SDK 7, which still takes `image-data` but prints a deprecation warning for every one), `image-data` (6),
 * `media` (5).
 */
function imagePartOf(ai: AiSdk): ImagePart | undefined {
  const schema = (ai as { toolModelMessageSchema?: { safeParse?: unknown } }).toolModelMessageSchema;
  const parse = schema?.safeParse;
  if (typeof parse !== "function") return undefined;
  const accepts = (part: Record<string, unknown>) => {
    const output = { type: "content", value: [{ ...part, mediaType: "image/png" }] };
    const message = {
      role: "tool",
      content: [{ type: "tool-result", toolCallId: "probe", toolName: "probe", output }],
    };
    try {
      return (parse.call(schema, message) as { success?: boolean }).success === true;
    } catch {
      return false;
    }
  };
  if (accepts({ type: "file", data: { type: "data", data: "" } })) return "file";
  return accepts({ type: "image-data", data: "" }) ? "image-data" : "media";
}

function modelOutput(arg: unknown, accepted: ImagePart | undefined): unknown {
  const v6 = typeof arg === "object" && arg !== null && "toolCallId" in arg && "output" in arg;
  const output = v6 ? (arg as { output: unknown }).output : arg;
  if (!isCallOutput(output)) return { type: "json", value: output ?? null };
  if (output.images.length === 0) return { type: "text", value: output.text };
  const imagePart = accepted ?? (v6 ? "image-data" : "media");
  return {
    type: "content",
    value: [
      ...(output.text ? [{ type: "text", text: output.text }] : []),
      ...output.images.map(({ data, mediaType }) =>
        imagePart === "file"
          ? { type: "file", mediaType, data: { type: "data", data } }
          : { type: imagePart, data, mediaType },
      ),
    ],
  };
}

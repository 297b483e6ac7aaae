import { z } from "zod";
import { ToolError } from "../errors.js";
import { oneLine, plural, splitLines } from "../files/text.js";
import { IMAGE_LIMIT } from "../kernels/cell.js";
import { defineTool } from "../registry.js";

const PROGRESS_EVERY_MS = 5000;

const megabytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

export const evalTool = defineTool({
  name: "eval",
  title: "Run code in a persistent kernel",
  tier: "exec",
  needs: ["kernels"],
  parallelSafe: false,
  description: [
    "Run a Python (default) or JavaScript cell in a persistent Jupyter kernel: variables, imports and loaded data stay",
    "between calls. The last expression's value is returned, display() works, pandas frames come back as tables and",
    "matplotlib figures as images; %pip, %cd, !cmd, %%bash, %%timeit work in Python. Inside a cell,",
    'tool("read", {"path": "a.py"}) calls this run\'s tools with the same permissions. `reset` starts a fresh kernel.',
  ].join(" "),
  input: {
    code: z.string().describe("The cell."),
    description: z.string().describe("5-10 words saying what the cell does: its label in the transcript."),
    language: z.enum(["python", "javascript"]).optional().describe("Default python."),
    reset: z.boolean().optional().describe("Discard the kernel's state and start clean first."),
  },
  output: {
    language: z.string(),
    status: z.enum(["ok", "error", "interrupted", "died"]),
    output: z.string(),
    images: z.number().int(),
    error: z.object({ name: z.string(), value: z.string() }).optional(),
    dropped_bytes: z.number().int(),
  },
  // The code itself, not only the model's own words about it: the person approves what will run.
  describeCall: (args) =>
    `run ${args.language ?? "python"} code (${plural(splitLines(args.code).length, "line")}): ${oneLine(args.code, 300)} — described as "${args.description}"`,
  async run(args, ctx) {
    const words = args.description.trim().split(/\s+/).filter(Boolean).length;
    if (words < 5 || words > 10) {
      throw new ToolError(
        `\`description\` has ${words} word${words === 1 ? "" : "s"}; give 5-10 words saying what the cell does, e.g. "load the sales table and count rows".`,
      );
    }
    // A lone surrogate cannot be encoded for the kernel: the Python kernel was lost 12-14 s later (seen).
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.exec(args.code);
    if (lone)
      throw new ToolError(
        `\`code\` contains a lone UTF-16 surrogate (U+${lone[0].charCodeAt(0).toString(16).toUpperCase()} at character ${lone.index + 1}), which no kernel can be sent; write it as an escape in the code instead (Python "\\ud800", JavaScript "\\uD800").`,
      );
    const language = args.language ?? "python";
    // MCP clients give up on a call after minutes of silence: a long cell reports that it is still running.
    const started = Date.now();
    const keepalive = setInterval(() => {
      const seconds = Math.round((Date.now() - started) / 1000);
      void ctx
        .progress({ progress: seconds, message: `cell running for ${seconds} s` })
        .catch(() => undefined);
    }, PROGRESS_EVERY_MS);
    const result = await ctx
      .use("kernels")
      .run(
        args.code,
        language,
        args.reset ?? false,
        async (name, toolArgs) => {
          // The cell runs inside this eval call: an eval from it would wait for itself (same lane) forever.
          if (name === "eval")
            return {
              text: 'tool("eval") cannot be called from inside a cell; run the code in this cell instead.',
              isError: true,
            };
          const reply = await ctx.callTool(name, toolArgs);
          const text = reply.content.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("\n");
          return {
            text,
            ...(reply.structuredContent ? { structured: reply.structuredContent } : {}),
            isError: reply.isError === true,
          };
        },
        ctx.signal,
      )
      .finally(() => clearInterval(keepalive));
    const lines: string[] = [];
    if (result.notice) lines.push(`(${result.notice})`);
    if (result.lostBefore)
      lines.push(`(a fresh kernel: ${result.lostBefore} since the last cell, so earlier state is lost)`);
    else if (result.restarted) lines.push("(a fresh kernel: earlier state was discarded)");
    if (result.droppedBytes) lines.push(`(${result.droppedBytes} earlier bytes of output dropped)`);
    if (result.text) lines.push(result.text.replace(/\n+$/, ""));
    if (result.images.length)
      lines.push(`(${result.images.length} image${result.images.length > 1 ? "s" : ""} below)`);
    if (result.droppedImages)
      lines.push(
        `(${plural(result.droppedImages.count, "more image")}, ${megabytes(result.droppedImages.bytes)}, not sent: an answer carries at most ${IMAGE_LIMIT.count} images and ${megabytes(IMAGE_LIMIT.bytes)}. Save figures to files instead — fig.savefig("name.png") — and show the ones that matter one cell at a time.)`,
      );
    if (result.error) lines.push(result.error.traceback || `${result.error.name}: ${result.error.value}`);
    if (result.status === "interrupted")
      lines.push(
        result.interruptedBy === "limit"
          ? `The cell was interrupted: it ran past the cell limit (${ctx.use("kernels").maxCellSeconds} s), output or not. The kernel's state is kept.`
          : "The cell was interrupted: no output within the idle budget. The kernel's state is kept.",
      );
    if (result.status === "died")
      lines.push(
        result.diedBecause
          ? `The kernel was lost during the cell: ${result.diedBecause}. Its state (variables, imports) is lost; the next call starts a fresh kernel.`
          : "The kernel died during the cell: its state (variables, imports) is lost. The next call starts a fresh kernel.",
      );
    if (lines.length === 0) lines.push("(no output)");
    return {
      text: lines.join("\n"),
      structured: {
        language,
        status: result.status,
        output: result.text,
        images: result.images.length,
        ...(result.error ? { error: { name: result.error.name, value: result.error.value } } : {}),
        dropped_bytes: result.droppedBytes,
      },
      content: result.images.map((image) => ({
        type: "image" as const,
        data: image.data,
        mimeType: image.mimeType,
      })),
    };
  },
});

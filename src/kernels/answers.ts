/** The text a cell's run answers — to the model (eval's answer) and to the cell (a tool() call's reply). */

import { ToolError } from "../errors.js";
import { plural, withoutTrailing } from "../files/text.js";
import type { ToolResult } from "../tool-result.js";
import { type CellOutcome, IMAGE_LIMIT } from "./cell.js";
import type { EvalAnswer, EvalArgs } from "./schema.js";

const megabytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/** The checks a cell passes before it is sent: a description of 5-10 words, no lone surrogate. */
export function checkCell(args: Pick<EvalArgs, "code" | "description">): void {
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
}

/** eval's answer for a cell's outcome. */
export function evalAnswer(result: CellOutcome, language: string, maxCellSeconds: number): EvalAnswer {
  const lines: string[] = [];
  if (result.notice) lines.push(`(${result.notice})`);
  if (result.lostBefore) lines.push(`(a fresh kernel: ${result.lostBefore}, so earlier state is lost)`);
  else if (result.restarted) lines.push("(a fresh kernel: earlier state was discarded)");
  if (result.clears)
    lines.push(
      `(the cell cleared its output ${result.clears === 1 ? "once" : `${result.clears} times`}: shown is what came after)`,
    );
  if (result.droppedBytes) lines.push(`(${result.droppedBytes} earlier bytes of output dropped)`);
  if (result.text) lines.push(withoutTrailing(result.text, "\n"));
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
        ? `The cell was interrupted: it ran past the cell limit (${maxCellSeconds} s), output or not. The kernel's state is kept.`
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
}

/** tool("eval") from a cell: refused (the cell runs inside this eval call, and would wait for itself forever). */
export const EVAL_FROM_CELL: ToolResult = {
  content: [
    {
      type: "text",
      text: 'tool("eval") and tool("notebook_run") cannot be called from inside a cell: they need the kernel the cell runs in. Run the code in this cell instead.',
    },
  ],
  isError: true,
};

/** A tool() call's reply as the cell's prelude reads it: the text and structured fields, or the error. */
export function cellReply(reply: ToolResult): string {
  const text = reply.content.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("\n");
  return JSON.stringify(reply.isError ? { error: text } : { result: { text, ...reply.structuredContent } });
}

/** Renders tool calls and results for a person reading a terminal (the tour and the console). */
import type { ToolResult } from "../tool-result.js";

export function indent(text: string, prefix = "    "): string {
  return text
    .split("\n")
    .map((line) => (line ? prefix + line : line))
    .join("\n");
}

export function renderCall(surface: string, tool: string, args: Record<string, unknown>): string {
  const json = JSON.stringify(args);
  return `▶ ${surface} › ${tool} ${json.length > 160 ? `${json.slice(0, 160)}…` : json}`;
}

export function renderResult(result: ToolResult): string {
  const parts = result.content.map((block) => {
    if (block.type === "text") return block.text;
    if (block.type === "image")
      return `[image ${block.mimeType}, ${Math.round((block.data.length * 3) / 4)} bytes]`;
    return `[${block.type}]`;
  });
  return `  ${result.isError ? "✗ error" : "✓"}\n${indent(parts.join("\n"))}`;
}

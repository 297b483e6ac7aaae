/**
 * A file's diagnostics asked of the tsserver behind typescript-language-server (its `typescript.tsserverRequest`
 * command: tsserver's syntactic and semantic `…DiagnosticsSync`), for the text tsserver holds now — the file as just
 * synced. With a plugin (Vue's), tsserver answers in the `.vue` file's own lines.
 */
import { fileURLToPath } from "node:url";
import type { Diagnostic } from "vscode-languageserver-protocol";
import type { LspClient } from "../server/client.js";

interface TsserverDiagnostic {
  readonly message: string;
  readonly category: string;
  readonly code?: number;
  readonly source?: string;
  readonly startLocation: { readonly line: number; readonly offset: number };
  readonly endLocation: { readonly line: number; readonly offset: number };
}

const SEVERITY: Record<string, Diagnostic["severity"]> = { error: 1, warning: 2, message: 3, suggestion: 4 };

export async function tsserverDiagnostics(
  client: LspClient,
  uri: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Diagnostic[]> {
  const file = fileURLToPath(uri);
  const ask = (command: string) =>
    client.request<{ body?: TsserverDiagnostic[] } | null>(
      "workspace/executeCommand",
      { command: "typescript.tsserverRequest", arguments: [command, { file, includeLinePosition: true }] },
      timeoutMs,
      signal,
    );
  const [syntactic, semantic] = await Promise.all([
    ask("syntacticDiagnosticsSync"),
    ask("semanticDiagnosticsSync"),
  ]);
  return [...(syntactic?.body ?? []), ...(semantic?.body ?? [])].map((d) => ({
    range: {
      start: { line: d.startLocation.line - 1, character: d.startLocation.offset - 1 },
      end: { line: d.endLocation.line - 1, character: d.endLocation.offset - 1 },
    },
    message: d.message,
    severity: SEVERITY[d.category] ?? 1,
    source: d.source ?? "typescript",
    ...(d.code !== undefined ? { code: d.code } : {}),
  }));
}

/** The lsp side of completeness (src/completeness.ts): servers still indexing, capped lists, partial indexes. */
import { withCompleteness } from "../../completeness.js";
import type { LspClient } from "../server/client.js";
import { RequestTimeout, ServerRefusal } from "../server/request-errors.js";

export { withCompleteness };

/** Servers that were still loading or indexing when they answered: what they had not reached may be missing. */
export function stillIndexing(clients: readonly LspClient[]): string | undefined {
  const busy = clients.filter((c) => c.state === "indexing" || c.progressTitles.length > 0);
  if (busy.length === 0) return undefined;
  const named = busy.map((c) => `${c.spec.id} (${c.progressTitles.join(", ") || "loading"})`).join(", ");
  const one = busy.length === 1;
  return `${named} ${one ? "was" : "were"} still indexing, so what ${one ? "it" : "they"} had not reached may be missing; ask again once \`lsp status\` shows ${one ? "it" : "them"} ready`;
}

/** The answer lists fewer than the server found. */
export function capped(shown: number, total: number | undefined, what: string): string | undefined {
  return total !== undefined && total > shown
    ? `showing ${shown} of ${total} ${what} (the answer's limit)`
    : undefined;
}

/** A server that searches only what it has open (clangd without its background index), for cross-file lists. */
export function openFilesOnly(client: LspClient): string | undefined {
  return client.spec.searchesOpenFilesOnly;
}

/** JSON-RPC's ContentModified: the server's state changed under the request (rust-analyzer while it indexes). */
const CONTENT_MODIFIED = -32801;

const isContentModified = (error: unknown) =>
  error instanceof ServerRefusal && error.code === CONTENT_MODIFIED;

/**
 * Asks a server that may be indexing. "Content modified" is asked again once its progress ends (as editors do),
 * within `timeoutMs`; a server that does not answer in time while it indexes is not a fault. Either way, when no
 * answer came, `interrupted` says why and the value is `empty`: the answer is then not complete.
 */
export async function askWhileIndexing<T>(
  client: LspClient,
  ask: () => Promise<T>,
  empty: T,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<{ value: T; interrupted?: string }> {
  const busy = () => client.state === "indexing" || client.progressTitles.length > 0;
  const attempt = async (): Promise<{ value: T } | { failed: string }> => {
    try {
      return { value: await ask() };
    } catch (error) {
      if (isContentModified(error))
        return {
          failed: `${client.spec.id} answered "content modified" (its project changed under the request)`,
        };
      if (error instanceof RequestTimeout && busy())
        return { failed: `${client.spec.id} did not answer within ${timeoutMs} ms` };
      throw error;
    }
  };
  const first = await attempt();
  if ("value" in first) return first;
  if (!first.failed.includes("content modified") || !(await client.settled(timeoutMs, 0, signal)))
    return { value: empty, interrupted: first.failed };
  const second = await attempt();
  return "value" in second ? second : { value: empty, interrupted: second.failed };
}

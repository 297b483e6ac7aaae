/**
 * What a tool does to its world, as a host reads it in tools/list (MCP's tool annotations). Each tool states its
 * effects beside its tier; the annotations are said from them per surface and run. Hosts act on these — one
 * auto-allows read-only tools in plan mode and runs them in parallel — and they were derived from the tier alone:
 * vibe_spawn, vibe_send and vibe_kill were listed read-only (they start, re-brief and kill processes that write),
 * eval and debug closed-world (their code has the network by default).
 */

import type { Surface, Tier } from "./surfaces.js";
import type { ToolAnnotations } from "./tool-result.js";

export interface ToolEffects {
  /**
   * Files: only read; written (by the tool, or by the code it runs); or written as far as the calling surface
   * allows (a worker has that surface's tools).
   */
  readonly files: "read" | "write" | "as the surface";
  /** Processes it starts: none, runbound's own helpers (language servers), or programs that run code. */
  readonly starts: "nothing" | "helpers" | "code";
  /** Whether it ends processes (a worker, a kernel, a debuggee). */
  readonly kills: boolean;
  /** Whether what it starts may reach the network, under the run's network policy. */
  readonly network: boolean;
  /** The same call again leaves things as the first did. */
  readonly idempotent: boolean;
}

/** A harness tool that states none: what its tier allows, assumed in full. */
export function effectsOfTier(tier: Tier): ToolEffects {
  if (tier === "read")
    return { files: "read", starts: "nothing", kills: false, network: false, idempotent: true };
  if (tier === "write")
    return { files: "write", starts: "nothing", kills: false, network: false, idempotent: false };
  return { files: "write", starts: "code", kills: true, network: true, idempotent: false };
}

/**
 * The annotations of a tool with `effects` listed on `surface`; `network`: whether what the run starts reaches
 * the network at all (false for a confined run whose network is off).
 */
export function annotationsOf(
  title: string,
  effects: ToolEffects,
  surface: Surface,
  network: boolean,
): ToolAnnotations {
  const writes = effects.files === "write" || (effects.files === "as the surface" && surface === "full");
  return {
    title,
    readOnlyHint: effects.files === "read" && effects.starts !== "code" && !effects.kills,
    destructiveHint: writes || effects.kills,
    idempotentHint: effects.idempotent,
    openWorldHint: effects.network && network,
  };
}

/**
 * Tiers and surfaces: the tier of a tool decides which surfaces list it at all, and on which of them a call must
 * pass the approval gate.
 */

export const TIERS = ["read", "write", "exec"] as const;
export type Tier = (typeof TIERS)[number];

/** Most privileged first: a surface reaches the workers of its own and of the surfaces after it. */
export const SURFACES = ["full", "plan", "readonly"] as const;
export type Surface = (typeof SURFACES)[number];

/** Who makes a call on a surface: the model, a bridged tool() call from a cell, or a worker. */
export type Caller = "model" | "bridge" | "worker";

interface SurfaceRule {
  /** Tiers whose tools this surface lists and may call. */
  readonly sees: readonly Tier[];
  /** Tiers whose calls go through the approval gate on this surface. */
  readonly gated: readonly Tier[];
  readonly summary: string;
}

const RULES: Record<Surface, SurfaceRule> = {
  full: { sees: TIERS, gated: ["write", "exec"], summary: "every tier; write and exec need approval" },
  plan: { sees: ["read"], gated: [], summary: "plan mode: tier read only" },
  readonly: { sees: ["read"], gated: [], summary: "read-only subagent: tier read only" },
};

export function isSurface(value: unknown): value is Surface {
  return typeof value === "string" && (SURFACES as readonly string[]).includes(value);
}

export function surfaceSees(surface: Surface, tier: Tier): boolean {
  return RULES[surface].sees.includes(tier);
}

export function surfaceGates(surface: Surface, tier: Tier): boolean {
  return RULES[surface].gated.includes(tier);
}

/** "plan mode: tier read only" — what a surface allows, for refusals and status. */
export function describeSurface(surface: Surface): string {
  return RULES[surface].summary;
}

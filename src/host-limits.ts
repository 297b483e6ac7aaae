/**
 * Caps over all the runs of this host process: language servers, kernels and workers running at once. A harness
 * sets them once (`setHostLimits`); a start that would go over is refused with what runs, whose, and what frees a
 * place — never queued without a word. Unset, nothing is capped (each run has its own limits besides).
 */
import { ToolError } from "./errors.js";
import { plural } from "./files/text.js";

export interface HostLimits {
  /** Language servers running at once, all runs together. */
  readonly languageServers?: number;
  /** Kernels running at once, all runs together. */
  readonly kernels?: number;
  /** Background workers running at once, all runs together. */
  readonly workers?: number;
}

type Kind = keyof HostLimits;

export interface Slot {
  readonly kind: Kind;
  /** The run it belongs to (its workdir), and what holds it ("tsgo @ ts", "python kernel", "w2"). */
  readonly run: string;
  readonly what: string;
  /** Whether it still holds its place (checked before each count), besides release. */
  readonly alive?: () => boolean;
  /** Gives the place back; a second call does nothing. */
  release(): void;
}

const NOUNS: Record<Kind, string> = {
  languageServers: "language server",
  kernels: "kernel",
  workers: "worker",
};

const FREES: Record<Kind, string> = {
  languageServers:
    "A language server stops by itself after `lsp.idleSeconds` without requests and a run's servers end with it; call again then",
  kernels:
    "A run's kernels end with the run, or after `kernels.stopIdleSeconds` without a cell where the harness set it; call again then",
  workers:
    "Wait for one of this run's workers (vibe_wait) or stop one (vibe_kill), or call again when others finish",
};

let limits: HostLimits = {};
const held: Record<Kind, Set<Slot>> = { languageServers: new Set(), kernels: new Set(), workers: new Set() };

/** Sets (or, with a kind left out, lifts) the host's caps. Throws on a cap that is not a whole number > 0. */
export function setHostLimits(next: HostLimits): void {
  for (const [key, value] of Object.entries(next)) {
    if (!(key in NOUNS))
      throw new TypeError(
        `setHostLimits: unknown cap \`${key}\`; the caps are ${Object.keys(NOUNS).join(", ")}`,
      );
    checkedCap(value, `setHostLimits: ${key}`);
  }
  limits = { ...next };
}

/** A cap as given: undefined (none) or a whole number > 0; anything else throws, naming `option`. */
export function checkedCap(value: unknown, option: string): number | undefined {
  if (value === undefined || (Number.isInteger(value) && (value as number) > 0))
    return value as number | undefined;
  throw new TypeError(
    `${option} must be a whole number > 0, got ${JSON.stringify(value)}; leave it out for no cap`,
  );
}

/** How many of each run now, all runs together. */
export function hostUsage(): Record<Kind, number> {
  return {
    languageServers: pruned("languageServers").size,
    kernels: pruned("kernels").size,
    workers: pruned("workers").size,
  };
}

/** The holders of `kind`, without those whose process has ended (a crash frees its place without a word). */
function pruned(kind: Kind): Set<Slot> {
  const holders = held[kind];
  for (const slot of holders) if (slot.alive && !slot.alive()) holders.delete(slot);
  return holders;
}

/** A place for one more `kind`, or a ToolError saying the host is full: what runs, this run's, and what frees one. */
export function takeSlot(kind: Kind, run: string, what: string, alive?: () => boolean): Slot {
  const cap = limits[kind];
  const holders = pruned(kind);
  if (cap !== undefined && holders.size >= cap) {
    const runs = new Set([...holders].map((s) => s.run)).size;
    const own = [...holders].filter((s) => s.run === run).map((s) => s.what);
    throw new ToolError(
      `Not started (${what}): this host already runs ${plural(holders.size, NOUNS[kind])}, its cap (setHostLimits({ ${kind}: ${cap} })), for ${runs} run${runs === 1 ? "" : "s"}; ${own.length ? `this run's: ${own.join(", ")}` : "none of them this run's"}. ${FREES[kind]}.`,
    );
  }
  const slot: Slot = {
    kind,
    run,
    what,
    ...(alive ? { alive } : {}),
    release: () => {
      holders.delete(slot);
    },
  };
  holders.add(slot);
  return slot;
}

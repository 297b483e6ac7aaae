/**
 * Tool specs and the registry of one run. A spec is the whole contract of a tool (name, tier, schemas, the
 * description the model reads); the registry is the run's catalog of them.
 */

import type { z } from "zod";
import type { ToolEffects } from "./annotations.js";
import type { ProcessTracker } from "./proc/tracker.js";
import type { ResourceKey, Resources } from "./resources.js";
import { type Caller, type Surface, surfaceSees, type Tier } from "./surfaces.js";
import type { ContentBlock, Progress, ToolResult } from "./tool-result.js";

/** Who issued a call: the model over a link, a kernel cell through `tool()`, or a background worker. */
export type { Caller } from "./surfaces.js";

export interface ToolContext {
  readonly workdir: string;
  readonly surface: Surface;
  readonly caller: Caller;
  /** Aborted when the client cancels the call, the link closes, or the run is disposed. */
  readonly signal: AbortSignal;
  /** Reports progress to the client when it asked for it (a no-op otherwise). */
  progress(update: Progress): Promise<void>;
  /** Start child processes through this, so the run ends them (as trees) when it is disposed. */
  readonly processes: ProcessTracker;
  /**
   * Calls another tool of the run as this call's surface sees it (kernels' tool(), workers): the same gate, approvals
   * and after-write hooks as a model's call, with caller "bridge".
   */
  callTool(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  /** The wired resource; a tool only reaches this for keys it declared in `needs`. */
  use<K extends ResourceKey>(key: K): Resources[K];
}

export type { ContentBlock, Progress };

export interface ToolOutput<S> {
  /** What the model reads: relative paths, 1-based lines, counts. */
  text: string;
  /** What the harness reads; must match the output schema. */
  structured: S;
  /** Workdir-relative paths this call wrote; they go through the run's after-write hooks. */
  written?: readonly string[];
  /** Further content blocks (images) shown after the text. */
  content?: readonly ContentBlock[];
}

type Shape = z.ZodRawShape;
type Infer<S extends Shape> = z.infer<z.ZodObject<S>>;

export interface ToolSpec<I extends Shape = Shape, O extends Shape = Shape> {
  readonly name: string;
  readonly title: string;
  readonly tier: Tier;
  /** Resources that must be wired for the tool to be registered at all. */
  readonly needs: readonly ResourceKey[];
  /** false → calls of this tool (and of tools sharing its lane) run one at a time per run. */
  readonly parallelSafe: boolean;
  /** The serialization lane for non-parallel-safe tools; defaults to the tool's name. */
  readonly lane?: string;
  /** true → the tool reports `written` paths, and its output gains the after-write hooks' fields. */
  readonly writes?: boolean;
  /** true → the tool starts processes that run code (confined where the run confines). */
  readonly runsCode?: boolean;
  /**
   * What it reads, writes, starts and kills, and whether that reaches the network: what tools/list's annotations
   * say (annotations.ts). A harness tool without it is taken to do all its tier allows.
   */
  readonly effects?: ToolEffects;
  /**
   * The tool's own rules on its arguments, beyond the schema — a file that must exist, text that must occur in it,
   * an edit_id that must be staged; throws a ToolError saying what to fix. The gate runs it before any approval, so
   * a person is only asked about calls that would run. It changes nothing (the run checks again as it goes).
   */
  check?(args: Infer<I>, ctx: ToolContext): void | Promise<void>;
  readonly description: string;
  readonly input: I;
  readonly output: O;
  /** One line for a permission card: what this call would do. */
  describeCall?(args: Infer<I>): string;
  run(args: Infer<I>, ctx: ToolContext): Promise<ToolOutput<Infer<O>>>;
}

/** Identity helper that keeps the argument and result types of a spec inferred from its schemas. */
export function defineTool<I extends Shape, O extends Shape>(spec: ToolSpec<I, O>): ToolSpec<I, O> {
  if (!/^[a-z][a-z0-9_]{0,63}$/.test(spec.name)) {
    throw new Error(`tool name "${spec.name}" must be lower_snake_case, 1-64 characters`);
  }
  return spec;
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds specs of every argument type.
export type AnyToolSpec = ToolSpec<any, any>;

/** The server side of one call, as the registry hands it to the gate. */
export interface CallRequest {
  readonly name: string;
  readonly args: unknown;
  readonly surface: Surface;
  readonly caller: Caller;
  readonly signal: AbortSignal;
  readonly progress?: (update: Progress) => Promise<void>;
}

export type Dispatch = (request: CallRequest) => Promise<ToolResult>;

/** An after-write hook adds a field to every writing tool's output (e.g. `diagnostics`). */
export interface AfterWriteHook<V = unknown> {
  readonly key: string;
  readonly schema: z.ZodType<V>;
  run(paths: readonly string[], signal: AbortSignal): Promise<{ text: string; value: V } | undefined>;
}

export interface RegistryOptions {
  readonly isWired: (key: ResourceKey) => boolean;
  /** Why a resource is not wired, where the run knows (`createRun({ kernels: false })`). */
  readonly whyUnwired?: (key: ResourceKey) => string | undefined;
  readonly afterWrite: () => readonly AfterWriteHook[];
}

/**
 * The catalog of a run's tools: the specs whose resources are wired, the ones left out and why, and the output
 * shapes as listed. It neither mounts nor calls anything (mount.ts and gate.ts do).
 */
export class Registry {
  readonly #specs = new Map<string, AnyToolSpec>();
  /** Specs left out because a resource is not wired: name → the missing keys (for a clear refusal). */
  readonly #unwired = new Map<string, ResourceKey[]>();
  readonly #added = new Set<(spec: AnyToolSpec) => void>();
  readonly #options: RegistryOptions;

  constructor(options: RegistryOptions) {
    this.#options = options;
  }

  /** Adds a spec if its resources are wired; returns whether it was registered. */
  add(spec: AnyToolSpec): boolean {
    if (this.#specs.has(spec.name)) throw new Error(`a tool named "${spec.name}" is already registered`);
    const missing = this.missing(spec);
    if (missing.length) {
      this.#unwired.set(spec.name, missing);
      return false;
    }
    this.#unwired.delete(spec.name);
    this.#specs.set(spec.name, spec);
    for (const listener of this.#added) listener(spec);
    return true;
  }

  /** Calls `listener` with every spec added from now on (a mounted surface lists it); returns the unsubscribe. */
  onAdd(listener: (spec: AnyToolSpec) => void): () => void {
    this.#added.add(listener);
    return () => this.#added.delete(listener);
  }
  /** The missing resources of a tool that was left out, or undefined. */
  unwired(name: string): ResourceKey[] | undefined {
    return this.#unwired.get(name);
  }

  /** A missing resource as a refusal names it: with why it is missing, where the run knows. */
  describeUnwired(key: ResourceKey): string {
    const why = this.#options.whyUnwired?.(key);
    return why ? `${key} (${why})` : key;
  }

  missing(spec: AnyToolSpec): ResourceKey[] {
    return spec.needs.filter((key) => !this.#options.isWired(key));
  }

  get(name: string): AnyToolSpec | undefined {
    return this.#specs.get(name);
  }

  all(): AnyToolSpec[] {
    return [...this.#specs.values()];
  }

  visible(surface: Surface): AnyToolSpec[] {
    return this.all().filter((spec) => surfaceSees(surface, spec.tier));
  }

  /** The output shape as listed: the spec's own, plus the after-write hooks' fields for writing tools. */
  outputShape(spec: AnyToolSpec): Shape {
    if (!spec.writes) return spec.output;
    const extra = Object.fromEntries(
      this.#options.afterWrite().map((hook) => [hook.key, hook.schema.optional()]),
    );
    return { ...spec.output, ...extra };
  }
}

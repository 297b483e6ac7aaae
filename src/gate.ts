/**
 * The one path every call takes — from a linked client, a kernel's tool() bridge or a worker: re-check the surface,
 * validate the arguments, ask for approval where the surface gates the tier, serialize non-parallel-safe tools,
 * run the handler, run the after-write hooks, and check the result against the output schema.
 */

import type { JsonSchemaType, JsonSchemaValidator } from "@modelcontextprotocol/server";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/server/validators/ajv";
import { z } from "zod";
import type { ApprovalGate } from "./approvals.js";
import { errorMessage, ToolError } from "./errors.js";
import { isPlain, quotedValue, visibleLine } from "./files/visible.js";
import type { Lanes } from "./lanes.js";
import type {
  AfterWriteHook,
  AnyToolSpec,
  CallRequest,
  Dispatch,
  Registry,
  ToolContext,
  ToolOutput,
} from "./registry.js";
import { withInstallNotes } from "./setup/on-demand.js";
import { describeSurface, surfaceGates, surfaceSees } from "./surfaces.js";
import type { ToolResult } from "./tool-result.js";

export interface GateDeps {
  readonly registry: Registry;
  readonly lanes: Lanes;
  readonly approvals: ApprovalGate;
  readonly afterWrite: () => readonly AfterWriteHook[];
  /** Aborted when the run is disposed (every request.signal must abort then too). */
  readonly runSignal: AbortSignal;
  readonly context: (request: CallRequest, signal: AbortSignal) => ToolContext;
  /** A line for the first answer of a tool that runs code (why the run is not confined), once per tool. */
  readonly firstAnswerNote?: (spec: AnyToolSpec) => string | undefined;
  /** The run installs missing components on demand: each call's answer says what it installed. */
  readonly installsOnDemand?: boolean;
}

export function createDispatcher(deps: GateDeps): Dispatch {
  const inputs = new WeakMap<AnyToolSpec, z.ZodObject>();
  const outputs = new WeakMap<AnyToolSpec, JsonSchemaValidator<unknown>>();
  const inputSchema = (spec: AnyToolSpec) => cached(inputs, spec, () => z.object(spec.input).strict());
  const outputCheck = (spec: AnyToolSpec) =>
    cached(outputs, spec, () => outputValidator(z.object(deps.registry.outputShape(spec))));

  return async (request) => {
    const spec = deps.registry.get(request.name);
    const installed: string[] = [];
    try {
      if (deps.runSignal.aborted)
        throw new ToolError("This run has ended (disposed); its tools can no longer be called.");
      if (!spec) throw new ToolError(unknownToolMessage(deps.registry, request));
      if (!surfaceSees(request.surface, spec.tier)) {
        throw new ToolError(
          `${spec.name} is not available on the ${request.surface} surface (${describeSurface(request.surface)}); ` +
            `${spec.name} is tier ${spec.tier}. Use the tools this surface lists.`,
        );
      }
      const parsed = inputSchema(spec).safeParse(request.args);
      if (!parsed.success) throw new ToolError(describeIssues(spec, parsed.error.issues));
      const args = parsed.data;
      // A linked call's signal aborts when its link closes, and dispose closes every link; bridged calls get the
      // run's signal joined in by run.callTool. So no per-call AbortSignal.any here (it costs ~10% of a call).
      const signal = request.signal;
      const ctx = deps.context(request, signal);
      if (spec.check) await spec.check(args, ctx);
      if (surfaceGates(request.surface, spec.tier)) {
        const decision = await deps.approvals.check(
          {
            tool: spec.name,
            title: spec.title,
            tier: spec.tier,
            surface: request.surface,
            caller: request.caller,
            summary: visibleLine(spec.describeCall?.(args) ?? `run ${spec.name} with ${compactJson(args)}`),
            arguments: args,
          },
          signal,
        );
        if (!decision.allow) {
          throw new ToolError(
            `Not done: ${spec.name} needs approval on the ${request.surface} surface, and ${decision.reason}. Do not retry the same call.`,
          );
        }
      }
      const work = () => spec.run(args, ctx) as Promise<ToolOutput<Record<string, unknown>>>;
      const run = () => (spec.parallelSafe ? work() : deps.lanes.run(spec.lane ?? spec.name, signal, work));
      const output = deps.installsOnDemand ? await withInstallNotes(installed, run) : await run();
      const result = await withAfterWrite(deps, spec, output, installed);
      const checked = outputCheck(spec)(result.structuredContent);
      if (!checked.valid) {
        throw new Error(`its result does not match its own output schema (${checked.errorMessage})`);
      }
      return result;
    } catch (error) {
      const text = failureText(spec?.name ?? request.name, error, request.signal, deps.runSignal);
      return errorResult(installed.length ? [...installed, text].join("\n\n") : text);
    }
  };
}

async function withAfterWrite(
  deps: GateDeps,
  spec: AnyToolSpec,
  output: ToolOutput<Record<string, unknown>>,
  installed: readonly string[],
): Promise<ToolResult> {
  const structured: Record<string, unknown> = { ...output.structured };
  const note = deps.firstAnswerNote?.(spec);
  const texts = [...installed, ...(note ? [note] : []), output.text];
  if (spec.writes && output.written?.length) {
    for (const hook of deps.afterWrite()) {
      try {
        const extra = await hook.run(output.written, deps.runSignal);
        if (extra) {
          if (extra.text) texts.push(extra.text);
          structured[hook.key] = extra.value;
        }
      } catch (error) {
        texts.push(`(${hook.key} unavailable: ${errorMessage(error)})`);
      }
    }
  }
  return {
    content: [{ type: "text", text: withinBudget(texts.join("\n\n")) }, ...(output.content ?? [])],
    structuredContent: structured,
  };
}

/**
 * Every answer's text has a budget: tools bound their own (read's pages, a cell's output), and this is the floor
 * under all of them — the middle is cut, with a count, so the start and the end (where a traceback's cause and a
 * footer's "how to see more" sit) both remain.
 */
export const ANSWER_TEXT_LIMIT = 200_000;

function withinBudget(text: string): string {
  if (text.length <= ANSWER_TEXT_LIMIT) return text;
  const half = Math.floor(ANSWER_TEXT_LIMIT / 2);
  const cut = text.length - 2 * half;
  return `${text.slice(0, half)}\n… (${cut.toLocaleString("en-US")} characters cut from the middle of this answer, over its ${ANSWER_TEXT_LIMIT.toLocaleString("en-US")}-character budget: ask for less at a time) …\n${text.slice(-half)}`;
}

export function errorResult(text: string): ToolResult {
  return { content: [{ type: "text", text: withinBudget(text) }], isError: true };
}

function failureText(name: string, error: unknown, callSignal: AbortSignal, runSignal: AbortSignal): string {
  if (error instanceof ToolError) return error.message;
  if (runSignal.aborted) return `${name} was stopped: the run ended (disposed) before it finished.`;
  if (callSignal.aborted) return `${name} was cancelled before it finished.`;
  return (
    `${name} failed inside runbound: ${errorMessage(error)}. ` +
    "This is a fault of runbound or of the resource behind the tool, not of your arguments; try once more, and report it if it repeats."
  );
}

/** Unknown arguments named in a refusal; the rest are counted. */
const MAX_UNKNOWN_LISTED = 5;

function unknownToolMessage(registry: Registry, request: CallRequest): string {
  const visible = registry.visible(request.surface).map((s) => s.name);
  const unwired = registry.unwired(request.name);
  const list = visible.length ? visible.join(", ") : "no tools";
  if (unwired) {
    const needs = unwired.map((key) => registry.describeUnwired(key)).join(" and ");
    return `${request.name} is not available in this run: it needs ${needs}, which the harness did not wire. This surface has: ${list}.`;
  }
  return `There is no tool named ${quotedValue(request.name)}. This surface has: ${list}.`;
}

function describeIssues(spec: AnyToolSpec, issues: readonly z.core.$ZodIssue[]): string {
  const params = Object.keys(spec.input);
  const problems = issues.map((issue) => {
    const at = issue.path.length ? `\`${issue.path.map(String).join(".")}\`` : "the arguments";
    if (issue.code === "unrecognized_keys") {
      const listed = issue.keys.slice(0, MAX_UNKNOWN_LISTED).map((key) => {
        const near = key.length <= 64 ? closestName(key, params) : undefined;
        const named = isPlain(key) ? `\`${key}\`` : quotedValue(key, 64);
        return `unknown argument ${named}${near ? ` (did you mean \`${near}\`?)` : ""}`;
      });
      const more = issue.keys.length - listed.length;
      return [
        ...listed,
        ...(more > 0
          ? [`${more.toLocaleString("en-US")} more unknown argument${more === 1 ? "" : "s"}`]
          : []),
      ].join("; ");
    }
    if (issue.code === "invalid_type" && /received undefined/.test(issue.message)) {
      return `${at} is required (${issue.expected})`;
    }
    return `${at}: ${issue.message}`;
  });
  const signature = params
    .map((p) => `${p}${(spec.input[p] as z.ZodType).safeParse(undefined).success ? "?" : ""}`)
    .join(", ");
  return `Invalid arguments for ${spec.name}:\n- ${problems.join("\n- ")}\n${spec.name} takes: ${signature}. Nothing was done.`;
}

/** The parameter a mistyped argument most likely meant (same letters ignoring case and _-, or ≤ 2 edits away). */
function closestName(key: string, params: readonly string[]): string | undefined {
  const norm = (name: string) => name.toLowerCase().replace(/[_-]/g, "");
  let best: { name: string; distance: number } | undefined;
  for (const name of params) {
    const distance = editDistance(norm(key), norm(name));
    if (distance <= 2 && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(
        (row[j] ?? 0) + 1,
        (next[j - 1] ?? 0) + 1,
        (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    row = next;
  }
  return row[b.length] ?? 0;
}

function compactJson(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * The output check validates the JSON schema a client is given, with the validator the SDK's own client uses: what
 * the harness would check, and cheaper than zod's parse. Compiling is the costly part, so validators are shared by every run of the process, keyed by the schema itself (after-write
 * hooks make a tool's output schema differ between runs).
 */
const jsonValidators = new AjvJsonSchemaValidator();
const compiledOutputs = new Map<string, JsonSchemaValidator<unknown>>();

function outputValidator(schema: z.ZodObject): JsonSchemaValidator<unknown> {
  const json = z.toJSONSchema(schema, { io: "output" }) as JsonSchemaType;
  const key = JSON.stringify(json);
  let validator = compiledOutputs.get(key);
  if (!validator) {
    validator = jsonValidators.getValidator<unknown>(json);
    compiledOutputs.set(key, validator);
  }
  return validator;
}

function cached<K extends object, V>(map: WeakMap<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

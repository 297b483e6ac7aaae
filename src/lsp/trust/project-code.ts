/**
 * What of a project's own code a language server would run — its own binary in the project (node_modules/.bin,
 * .venv/bin), or what the server runs of the project (rust-analyzer's build scripts, proc macros, cargo check) —
 * and the server as it runs in an untrusted workspace instead.
 */
import path from "node:path";
import { resolveBinary } from "../../proc/binaries.js";
import type { ServerSpec } from "../catalog.js";

function ownBinary(spec: ServerSpec, root: string, workdir: string, home: string) {
  return spec.candidates
    .map((c) => resolveBinary(c, root, workdir, home, { project: true }))
    .find((r) => r?.from === "project");
}

/** What trusting the workspace would run for `spec` at `root`, or undefined when trust changes nothing there. */
export function projectCodeAt(
  spec: ServerSpec,
  root: string,
  workdir: string,
  home: string,
): string | undefined {
  const own = ownBinary(spec, root, workdir, home);
  if (own) return `its own ${path.relative(workdir, own.command)} (as ${spec.name})`;
  if (spec.untrusted)
    return `${spec.name} with ${spec.untrusted.runs} in ${path.relative(workdir, root) || "."}`;
  return undefined;
}

/** What an untrusted workspace changes for `spec` at `root`, for status and a server's first answer. */
export function untrustedNotes(
  spec: ServerSpec,
  root: string,
  workdir: string,
  home: string,
): { id: string; note: string }[] {
  const notes: { id: string; note: string }[] = [];
  const own = ownBinary(spec, root, workdir, home);
  if (own)
    notes.push({
      id: spec.id,
      note: `the project's own ${path.basename(own.command)} is not run (runbound's is)`,
    });
  if (spec.untrusted) notes.push({ id: spec.id, note: spec.untrusted.note });
  return notes;
}

/** A server spec as it runs in an untrusted workspace: its untrusted settings, no wait for a check on save. */
export function withoutProjectCode(spec: ServerSpec): ServerSpec {
  if (!spec.untrusted) return spec;
  const { checkOnSaveMs: _check, checkTitle: _title, ...rest } = spec;
  const { untrusted } = spec;
  const shaped: ServerSpec = {
    ...rest,
    ...(untrusted.env ? { env: { ...spec.env, ...untrusted.env } } : {}),
    ...(untrusted.settings ? { settings: untrusted.settings } : {}),
  };
  if (!("initializationOptions" in untrusted)) return shaped;
  // Read as the server starts, as the trusted options are (Vue's names a plugin that may be installed later).
  return Object.defineProperty(shaped, "initializationOptions", {
    get: () => untrusted.initializationOptions,
    enumerable: true,
  });
}

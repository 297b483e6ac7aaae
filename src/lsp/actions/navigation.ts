/**
 * The navigation actions: definition, type_definition, implementation, references and hover — a target's locations
 * with one-line snippets (quoted only from the workdir and the library roots), or its hover text.
 */
import type { Hover, Location, LocationLink } from "vscode-languageserver-protocol";
import { plural } from "../../files/text.js";
import { shownPath } from "../../files/visible.js";
import { uriPath } from "../diagnostics/diagnostics.js";
import type { HierarchyDirection, LspAnswer, NavigationAction, Place } from "../schema.js";
import {
  CONFIRM_PAUSE_MS,
  fileUri,
  type LspBase,
  requireCapability,
  snippetReader,
  type Target,
  targetNote,
} from "../target.js";
import { codeActions } from "./code-actions.js";
import { askWhileIndexing, capped, openFilesOnly, stillIndexing, withCompleteness } from "./completeness.js";
import { asLocations, columnsOf, hoverText, mergedRows, NOT_SHOWN, type SnippetReader } from "./format.js";
import { hierarchy } from "./hierarchy.js";

const MAX_REFERENCES = 50;

type LocationAction = Exclude<
  NavigationAction,
  "code_actions" | "hover" | "call_hierarchy" | "type_hierarchy"
>;

/** What call_hierarchy and type_hierarchy take beside the target. */
export interface HierarchyOptions {
  readonly direction?: HierarchyDirection | undefined;
  readonly depth?: number | undefined;
}

const METHOD: Record<LocationAction, string> = {
  definition: "textDocument/definition",
  type_definition: "textDocument/typeDefinition",
  implementation: "textDocument/implementation",
  references: "textDocument/references",
};

/** The answer of a navigation action at its target. */
export async function navigate(
  base: LspBase,
  t: Target,
  action: NavigationAction,
  signal: AbortSignal,
  options: HierarchyOptions = {},
): Promise<LspAnswer> {
  if (action === "call_hierarchy" || action === "type_hierarchy") {
    requireCapability(t.client, action, base.supervisor.runningClients());
    const direction = options.direction ?? (action === "call_hierarchy" ? "incoming" : "supertypes");
    return hierarchy(base, t, direction, options.depth ?? 1, signal);
  }
  requireCapability(t.client, action);
  const note = targetNote(t.target);
  if (action === "hover") return hover(base, t, note, signal);
  if (action === "code_actions") return codeActions(base, t, note, signal);
  const { locations, interrupted } = await locationsOf(base, t, action, signal);
  const answer = locationAnswer(base, t, action, locations, note, interrupted !== undefined);
  const reasons = [
    interrupted,
    capped(answer.structured.locations?.length ?? 0, locations.length, "locations"),
    stillIndexing([t.client]),
    action === "definition" || action === "type_definition" ? undefined : openFilesOnly(t.client),
  ];
  return withCompleteness(answer, reasons);
}

/** A location action's answer: the locations with their snippets, references grouped by file. */
function locationAnswer(
  base: LspBase,
  t: Target,
  action: LocationAction,
  locations: (Location | LocationLink)[],
  note: string,
  interrupted: boolean,
): LspAnswer {
  const reader = snippetReader(base, t);
  // A snippet costs a file read: only for the locations shown (a 300-file project has 600 references).
  const places = locations.slice(0, MAX_REFERENCES).map((loc) => reader.place(loc));
  const total = locations.length;
  const server = t.client.spec.id;
  const label = action.replace("_", " ");
  const structured = { action, server, target: t.target, locations: places, total };
  const lead = note ? `${note}\n` : "";
  if (places.length === 0)
    return {
      text: interrupted
        ? `${lead}No ${label} received from ${server}.`
        : `${lead}No ${label} found (${server} answered with no locations).`,
      structured,
    };
  const showing = total > places.length ? `showing ${places.length} of ${total}` : "";
  if (action !== "references") {
    const rows = mergedRows(places).map((r) => `${shownPath(r.path)}:${r.line}${columnsOf(r)}  ${r.snippet}`);
    return { text: `${lead}${showing ? `(${showing})\n` : ""}${rows.join("\n")}`, structured };
  }
  const files = new Set(locations.map((loc) => ("targetUri" in loc ? loc.targetUri : loc.uri))).size;
  const byFile = new Map<string, Place[]>();
  for (const p of places) byFile.set(p.path, [...(byFile.get(p.path) ?? []), p]);
  const rows = [...byFile].map(
    ([f, ps]) =>
      `${shownPath(f)}\n${mergedRows(ps)
        .map((r) => `  ${r.line}${columnsOf(r)}  ${r.snippet}`)
        .join("\n")}`,
  );
  return {
    text: `${lead}${plural(total, "reference")} in ${plural(files, "file")}${showing ? `, ${showing}` : ""}:\n${rows.join("\n")}${notShown(locations.slice(places.length), reader)}`,
    structured,
  };
}

function textDocumentOf(t: Target): { uri: string } {
  return { uri: t.client.documents.get(fileUri(t.file))?.uri ?? fileUri(t.file) };
}

/** The locations a server gives, asked again when it was still loading or (where the catalog says) just started. */
async function locationsOf(
  base: LspBase,
  t: Target,
  action: LocationAction,
  signal: AbortSignal,
): Promise<{ locations: (Location | LocationLink)[]; interrupted?: string }> {
  const textDocument = textDocumentOf(t);
  const timeout = base.supervisor.timeouts.requestMs;
  const params =
    action === "references"
      ? { textDocument, position: t.position, context: { includeDeclaration: true } }
      : { textDocument, position: t.position };
  const ask = () =>
    t.client.request<Location | Location[] | LocationLink[] | null>(METHOD[action], params, timeout, signal);
  const first = await askWhileIndexing(t.client, ask, null, timeout, signal);
  if (first.interrupted) return { locations: [], interrupted: first.interrupted };
  let raw = first.value;
  // A server still loading its project answers empty: wait for its progress to end, then ask once more.
  if (
    asLocations(raw).length === 0 &&
    t.client.progressTitles.length &&
    (await t.client.settled(timeout, 0, signal))
  ) {
    raw = await ask();
  }
  // A server started moments ago may answer from a half-analysed workspace (pyright: 3 references, then 4, with no
  // progress reported). Where the catalog says so, confirm: ask again after a pause until two answers agree (not
  // for every server: the cost is in ARCHITECTURE.md).
  const confirmMs = t.client.spec.confirmReferencesMs;
  if (action === "references" && confirmMs && performance.now() - t.client.startedAt < confirmMs) {
    const deadline = performance.now() + timeout;
    for (let previous = -1; asLocations(raw).length !== previous && performance.now() < deadline; ) {
      previous = asLocations(raw).length;
      await new Promise((r) => setTimeout(r, CONFIRM_PAUSE_MS));
      raw = await ask();
    }
  }
  return { locations: asLocations(raw) };
}

/**
 * A hover quotes the definition's file (a docstring, a literal type): when there is something to say, where the
 * symbol is defined is asked too (beside the hover), so a hover is not the way to read a file outside the workdir.
 */
async function hover(base: LspBase, t: Target, note: string, signal: AbortSignal): Promise<LspAnswer> {
  const textDocument = textDocumentOf(t);
  const timeout = base.supervisor.timeouts.requestMs;
  const server = t.client.spec.id;
  const ask = () =>
    t.client.request<Hover | null>(
      "textDocument/hover",
      { textDocument, position: t.position },
      timeout,
      signal,
    );
  // Where the symbol is defined is asked beside the hover, not after it: one wait instead of two.
  const define = () =>
    t.client.capabilities.definitionProvider
      ? t.client
          .request<Location | Location[] | LocationLink[] | null>(
            "textDocument/definition",
            { textDocument, position: t.position },
            timeout,
            signal,
          )
          .catch(() => null)
      : Promise.resolve(null);
  let asked = ask();
  let defined = define();
  let answer = await asked;
  if (!hoverText(answer) && t.client.progressTitles.length && (await t.client.settled(timeout, 0, signal))) {
    asked = ask();
    defined = define();
    answer = await asked;
  }
  const text = hoverText(answer);
  if (text && t.client.capabilities.definitionProvider) {
    const reader = snippetReader(base, t);
    const outside = asLocations(await defined)
      .map((loc) => uriPath("targetUri" in loc ? loc.targetUri : loc.uri))
      .filter((file) => !reader.shows(file));
    if (outside.length)
      return {
        text: `The symbol is defined outside the workdir (${shownPath(reader.rel(outside[0]!))}), so what the server says of it is not shown.`,
        structured: { action: "hover", server, target: t.target, hover: NOT_SHOWN },
      };
  }
  return {
    text: `${note ? `${note}\n` : ""}${text || `${server} has no hover information for \`${t.target.identifier}\`.`}`,
    structured: { action: "hover", server, target: t.target, hover: text },
  };
}

/** One line on the references not shown: how many, in which files (the ten with most first), so the scope is known. */
function notShown(rest: (Location | LocationLink)[], reader: SnippetReader): string {
  if (rest.length === 0) return "";
  const perFile = new Map<string, number>();
  for (const loc of rest) {
    const uri = "targetUri" in loc ? loc.targetUri : loc.uri;
    perFile.set(uri, (perFile.get(uri) ?? 0) + 1);
  }
  const named = [...perFile]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([uri, n]) => `${shownPath(reader.rel(uriPath(uri)))} (${n})`);
  const more = perFile.size > named.length ? `, +${plural(perFile.size - named.length, "more file")}` : "";
  return `\nNot shown: ${rest.length} more in ${plural(perFile.size, "file")}: ${named.join(", ")}${more}.`;
}

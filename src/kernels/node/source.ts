/**
 * A cell's source made runnable in V8's REPL mode: TypeScript's types stripped (Node's own stripper, where this
 * Node has it), and `import` — a declaration, or `import()` — turned into a call of the kernel's importer, since code
 * evaluated through the inspector has no module loader behind it. Found by parsing (acorn), never by pattern, so
 * an `import` inside a string or a comment is left alone.
 */

import module from "node:module";
import type { Node, Options } from "acorn";

export const IMPORTER = "__runboundImport";

interface ImportDeclaration extends Node {
  readonly specifiers: readonly {
    readonly type: string;
    readonly local: { readonly name: string };
    readonly imported?: { readonly type: string; readonly name?: string; readonly value?: unknown };
  }[];
  readonly source: Node & { readonly raw?: string };
  readonly attributes?: readonly Node[];
}

interface Edit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

type Stripper = (code: string, options: { mode: "strip" | "transform" }) => string;

type Parse = typeof import("acorn").parse;
/** acorn, loaded by the first cell that needs it (a kernel whose cells never import keeps its ~5 MB). */
let parser: Parse | undefined;
const acorn = async (): Promise<Parse> => {
  parser ??= (await import("acorn")).parse;
  return parser;
};

/** A JavaScript cell's runnable source: the original, its imports rewritten when it has any. */
export async function prepareCell(code: string): Promise<string> {
  if (!code.includes("import")) return code;
  const program = parseCell(await acorn(), code);
  return program ? rewriteImports(code, program) : code;
}

/**
 * After V8 found a syntax error: the cell as TypeScript with its types stripped, when it is not JavaScript (so
 * nothing of it ran) and is TypeScript; else undefined and V8's error stands.
 */
export async function typeScriptCell(code: string): Promise<string | undefined> {
  const strip = (module as { stripTypeScriptTypes?: Stripper }).stripTypeScriptTypes;
  const parse = await acorn();
  if (!strip || parseCell(parse, code)) return undefined;
  // "transform" also turns enums and namespaces into JavaScript; Node 26 strips only.
  for (const mode of ["transform", "strip"] as const) {
    let stripped: string;
    try {
      stripped = strip(code, { mode });
    } catch {
      continue;
    }
    const program = parseCell(parse, stripped);
    return program ? rewriteImports(stripped, program) : undefined;
  }
  return undefined;
}

/** Whether this Node strips TypeScript's types (22.13 and later). */
export function stripsTypes(): boolean {
  return typeof (module as { stripTypeScriptTypes?: Stripper }).stripTypeScriptTypes === "function";
}

function parseCell(parse: Parse, code: string): Node | undefined {
  const base: Options = { ecmaVersion: "latest", allowAwaitOutsideFunction: true, allowHashBang: true };
  for (const sourceType of ["module", "script"] as const) {
    try {
      return parse(code, { ...base, sourceType });
    } catch {
      // a sloppy-mode cell parses as a script; neither: not JavaScript
    }
  }
  return undefined;
}

function rewriteImports(code: string, program: Node): string {
  const edits: Edit[] = [];
  visit(program, (node) => {
    if (node.type === "ImportExpression")
      edits.push({ start: node.start, end: node.start + 6, text: IMPORTER });
    if (node.type === "ImportDeclaration") edits.push(declaration(code, node as ImportDeclaration));
  });
  edits.sort((a, b) => b.start - a.start);
  let out = code;
  for (const edit of edits) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

/** `import a, { b as c } from "m" with { type: "json" }` → `const { default: a, b: c } = await importer("m", …);` */
function declaration(code: string, node: ImportDeclaration): Edit {
  const attributes = node.attributes?.length
    ? `, { with: { ${node.attributes.map((a) => code.slice(a.start, a.end)).join(", ")} } }`
    : "";
  const load = `await ${IMPORTER}(${code.slice(node.source.start, node.source.end)}${attributes})`;
  const named: string[] = [];
  let namespace: string | undefined;
  for (const specifier of node.specifiers) {
    const local = specifier.local.name;
    if (specifier.type === "ImportNamespaceSpecifier") namespace = local;
    else if (specifier.type === "ImportDefaultSpecifier") named.push(`default: ${local}`);
    else {
      const imported = specifier.imported;
      const name = imported?.type === "Literal" ? JSON.stringify(imported.value) : (imported?.name ?? local);
      named.push(name === local ? local : `${name}: ${local}`);
    }
  }
  const statements: string[] = [];
  if (namespace) {
    statements.push(`const ${namespace} = ${load};`);
    if (named.length) statements.push(`const { ${named.join(", ")} } = ${namespace};`);
  } else if (named.length) statements.push(`const { ${named.join(", ")} } = ${load};`);
  else statements.push(`${load};`);
  return { start: node.start, end: node.end, text: statements.join(" ") };
}

function visit(node: Node, each: (node: Node) => void): void {
  each(node);
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) visit(item, each);
    } else if (isNode(value)) visit(value, each);
  }
}

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && typeof (value as Node).type === "string";
}

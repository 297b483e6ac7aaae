/**
 * Changes to a notebook's text that touch only what they change: a field of a cell, a cell inserted, removed or
 * moved. Everything else — other cells, metadata, key order, number forms, the file's indent — keeps its bytes.
 */
import type { Node } from "jsonc-parser";
import type { CellView, NotebookDocument } from "./document.js";
import { jsonAt, type Layout, layoutOf } from "./serialize.js";

interface TextEdit {
  readonly offset: number;
  readonly length: number;
  readonly content: string;
}

export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let out = text;
  for (const edit of [...edits].sort((a, b) => b.offset - a.offset))
    out = out.slice(0, edit.offset) + edit.content + out.slice(edit.offset + edit.length);
  return out;
}

/** The whitespace before `offset` on its line ("" when something else precedes it there). */
function indentBefore(text: string, offset: number): string {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  const lead = text.slice(start, offset);
  return /^[ \t]*$/.test(lead) ? lead : "";
}

function depthOf(indent: string, layout: Layout): number {
  return layout.unit.length ? Math.round(indent.length / layout.unit.length) : 0;
}

/** Sets `key` of a cell to `value`: its value replaced in place, or the field added where sorted order puts it. */
export function setCellField(doc: NotebookDocument, view: CellView, key: string, value: unknown): TextEdit {
  const layout = layoutOf(doc.text);
  const properties = view.node.children ?? [];
  const property = properties.find((p) => p.children?.[0]?.value === key);
  if (property?.children?.[1]) {
    const valueNode = property.children[1];
    const depth = depthOf(indentBefore(doc.text, property.offset), layout);
    return { offset: valueNode.offset, length: valueNode.length, content: jsonAt(value, depth, layout) };
  }
  const fieldIndent = properties[0]
    ? indentBefore(doc.text, properties[0].offset)
    : indentBefore(doc.text, view.node.offset) + layout.unit;
  const field = `${JSON.stringify(key)}: ${jsonAt(value, depthOf(fieldIndent, layout), layout)}`;
  const after = properties.find((p) => String(p.children?.[0]?.value) > key);
  if (after) return { offset: after.offset, length: 0, content: `${field},${layout.eol}${fieldIndent}` };
  const last = properties.at(-1);
  if (last) return { offset: end(last), length: 0, content: `,${layout.eol}${fieldIndent}${field}` };
  // An empty object: the field on a line of its own.
  const closing = indentBefore(doc.text, view.node.offset);
  return {
    offset: view.node.offset,
    length: view.node.length,
    content: `{${layout.eol}${fieldIndent}${field}${layout.eol}${closing}}`,
  };
}

/** Replaces a whole cell with `cell` (a change of kind, whose fields differ). */
export function replaceCell(doc: NotebookDocument, view: CellView, cell: unknown): TextEdit {
  const layout = layoutOf(doc.text);
  const depth = depthOf(indentBefore(doc.text, view.node.offset), layout);
  return { offset: view.node.offset, length: view.node.length, content: jsonAt(cell, depth, layout) };
}

/** The text of a cell inserted so that it becomes cell `position` (0-based) of the array. */
export function insertCellText(doc: NotebookDocument, position: number, cellText: string): TextEdit {
  const layout = layoutOf(doc.text);
  const nodes = doc.cellsNode.children ?? [];
  const first = nodes[0];
  const elementIndent = first ? indentBefore(doc.text, first.offset) : layout.unit.repeat(2);
  const at = nodes[position];
  if (at) return { offset: at.offset, length: 0, content: `${cellText},${layout.eol}${elementIndent}` };
  const last = nodes.at(-1);
  if (last) return { offset: end(last), length: 0, content: `,${layout.eol}${elementIndent}${cellText}` };
  const closing = indentBefore(doc.text, doc.cellsNode.offset) || layout.unit;
  return {
    offset: doc.cellsNode.offset,
    length: doc.cellsNode.length,
    content: `[${layout.eol}${elementIndent}${cellText}${layout.eol}${closing}]`,
  };
}

/** A new cell's text at the array's depth. */
export function cellText(doc: NotebookDocument, cell: unknown): string {
  const layout = layoutOf(doc.text);
  const first = doc.cellsNode.children?.[0];
  const depth = first ? depthOf(indentBefore(doc.text, first.offset), layout) : 2;
  return jsonAt(cell, depth, layout);
}

/** Removes cell `position` (0-based) with its separator; the last one leaves `[]`, as nbformat writes it. */
export function deleteCell(doc: NotebookDocument, position: number): TextEdit {
  const nodes = doc.cellsNode.children ?? [];
  const node = nodes[position] as Node;
  if (nodes.length === 1) {
    return { offset: doc.cellsNode.offset, length: doc.cellsNode.length, content: "[]" };
  }
  const before = nodes[position - 1];
  if (before) return { offset: end(before), length: end(node) - end(before), content: "" };
  const next = nodes[position + 1] as Node;
  return { offset: node.offset, length: next.offset - node.offset, content: "" };
}

/** The cell's own text, as the file has it. */
export function textOfCell(doc: NotebookDocument, view: CellView): string {
  return doc.text.slice(view.node.offset, end(view.node));
}

function end(node: Node): number {
  return node.offset + node.length;
}

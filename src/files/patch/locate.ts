/**
 * Where a hunk's lines stand in a file: exact first, then ignoring trailing, then all, whitespace — in time linear in
 * the file and the hunk. Tried at every line in turn, a hunk of 8,000 context lines against 80,000 lines that almost
 * matched everywhere held the host's thread 18 s (a 24 KB patch). Lines are compared as numbers (one per distinct
 * line, per looseness), a block is found by Knuth–Morris–Pratt, and what one file's hunks may spend is bounded.
 */
import { ToolError } from "../../errors.js";

const LOOSENESS: readonly ((s: string) => string)[] = [(s) => s, (s) => s.trimEnd(), (s) => s.trim()];

/** Lines one patch may look at placing its hunks in one file (~0.3 s of the host's thread); past it, refused. */
export const PLACING_STEPS = 50_000_000;

/** The file's lines at one looseness: each line's number, and where each number occurs. */
interface Level {
  readonly numbers: Map<string, number>;
  readonly ids: Int32Array;
  /** Positions of number k: positions[starts[k] .. starts[k + 1]), ascending. */
  readonly starts: Int32Array;
  readonly positions: Int32Array;
}

export class FileLines {
  readonly #lines: readonly string[];
  readonly #shown: string;
  readonly #levels: Level[] = [];
  #spent = 0;

  constructor(lines: readonly string[], shown: string) {
    this.#lines = lines;
    this.#shown = shown;
  }

  /** The first line at or after `from` that is `wanted` (exact, then looser); -1 if none. */
  findLine(wanted: string, from: number): number {
    for (let k = 0; k < LOOSENESS.length; k++) {
      const level = this.#level(k);
      const id = level.numbers.get(LOOSENESS[k]!(wanted));
      if (id === undefined) continue;
      const at = firstAtOrAfter(level, id, from);
      if (at !== -1) return at;
    }
    return -1;
  }

  /**
   * Where `block` stands at or after `from`: with `hint`, the place nearest to it (the earlier of two as near);
   * `atEnd`, only where it ends the file. -1 if nowhere, at any looseness.
   */
  findBlock(block: readonly string[], from: number, hint: number | undefined, atEnd: boolean): number {
    const n = this.#lines.length;
    const last = n - block.length;
    if (last < from) return -1;
    for (let k = 0; k < LOOSENESS.length; k++) {
      const level = this.#level(k);
      const wanted = idsOf(level, block.map(LOOSENESS[k]!));
      // A line of the block that the file never has at this looseness: no place here, and nothing to scan.
      if (!wanted) continue;
      const search = new BlockSearch(level.ids, wanted, () => this.#spend());
      if (atEnd) {
        const at = Math.max(from, last);
        if (search.matchesAt(at)) return at;
        continue;
      }
      if (hint === undefined) {
        const first = search.first(from, n);
        if (first !== -1) return first;
        continue;
      }
      // Clamped, the nearest place is the same (they all lie on one side of a hint outside), and the window's
      // reach stays finite (a header's line number can be any size).
      const near = nearest(search, from, n, block.length, Math.min(Math.max(hint, from), last));
      if (near !== -1) return near;
    }
    return -1;
  }

  /**
   * Where the most leading lines of `block` agree with the file (ignoring whitespace), at or after `from`: for the
   * refusal's "closest place". The earliest of equal runs; run 0 when no line starts it.
   */
  closest(block: readonly string[], from: number): { at: number; run: number } {
    const level = this.#level(2);
    const wanted = block.map((line) => level.numbers.get(line.trim()) ?? -1);
    return new BlockSearch(level.ids, Int32Array.from(wanted), () => {}).longestPrefix(from);
  }

  #spend(): void {
    if (++this.#spent <= PLACING_STEPS) return;
    throw new ToolError(
      `${this.#shown}: the patch's hunks could not be placed within the work allowed (${PLACING_STEPS.toLocaleString("en-US")} line comparisons): their context lines recur throughout the file's ${this.#lines.length.toLocaleString("en-US")} lines without lining up. Give each hunk a few lines that occur only there (or \`@@ <line>\` to seek to), or fewer hunks per patch. Nothing was changed.`,
    );
  }

  #level(k: number): Level {
    const kept = this.#levels[k];
    if (kept) return kept;
    const level = levelOf(this.#lines.map(LOOSENESS[k]!));
    this.#levels[k] = level;
    return level;
  }
}

function levelOf(lines: readonly string[]): Level {
  const numbers = new Map<string, number>();
  const ids = new Int32Array(lines.length);
  for (const [i, line] of lines.entries()) {
    let id = numbers.get(line);
    if (id === undefined) {
      id = numbers.size;
      numbers.set(line, id);
    }
    ids[i] = id;
  }
  const starts = new Int32Array(numbers.size + 1);
  for (const id of ids) starts[id + 1]!++;
  for (let k = 1; k < starts.length; k++) starts[k]! += starts[k - 1]!;
  const filled = starts.slice(0, numbers.size);
  const positions = new Int32Array(lines.length);
  for (const [i, id] of ids.entries()) positions[filled[id]!++] = i;
  return { numbers, ids, starts, positions };
}

/** The block's lines as the level's numbers; undefined when one of them is not in the file. */
function idsOf(level: Level, lines: readonly string[]): Int32Array | undefined {
  const ids = new Int32Array(lines.length);
  for (const [i, line] of lines.entries()) {
    const id = level.numbers.get(line);
    if (id === undefined) return undefined;
    ids[i] = id;
  }
  return ids;
}

function firstAtOrAfter(level: Level, id: number, from: number): number {
  let lo = level.starts[id]!;
  let hi = level.starts[id + 1]!;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (level.positions[mid]! < from) lo = mid + 1;
    else hi = mid;
  }
  return lo < level.starts[id + 1]! ? level.positions[lo]! : -1;
}

/**
 * The place nearest `hint` in [from, n): every place within a window around the hint, the window doubled until
 * one is found — a hint that is right costs the hunk's length, not the file's.
 */
function nearest(search: BlockSearch, from: number, n: number, length: number, hint: number): number {
  for (let reach = Math.max(length, 16); ; reach *= 2) {
    const lo = Math.max(from, hint - reach);
    const hi = Math.min(n, hint + reach + length);
    const found = search.all(lo, hi);
    if (found.length)
      return found.reduce((best, i) => (Math.abs(i - hint) < Math.abs(best - hint) ? i : best));
    if (lo === from && hi === n) return -1;
  }
}

/** Knuth–Morris–Pratt over line numbers; `step` is called once per line looked at. */
class BlockSearch {
  readonly #text: Int32Array;
  readonly #block: Int32Array;
  readonly #fail: Int32Array;
  readonly #step: () => void;

  constructor(text: Int32Array, block: Int32Array, step: () => void) {
    this.#text = text;
    this.#block = block;
    this.#step = step;
    this.#fail = failureOf(block);
  }

  matchesAt(at: number): boolean {
    for (let k = 0; k < this.#block.length; k++) {
      this.#step();
      if (this.#text[at + k] !== this.#block[k]) return false;
    }
    return true;
  }

  /** The first place in [from, to). */
  first(from: number, to: number): number {
    let found = -1;
    this.#scan(from, to, (at) => {
      found = at;
      return false;
    });
    return found;
  }

  /** Every place in [from, to), ascending. */
  all(from: number, to: number): number[] {
    const found: number[] = [];
    this.#scan(from, to, (at) => {
      found.push(at);
      return true;
    });
    return found;
  }

  /** The longest run of the block's leading lines found in [from, end), and where (the earliest). */
  longestPrefix(from: number): { at: number; run: number } {
    const best = { at: -1, run: 0 };
    const block = this.#block;
    let q = 0;
    for (let j = from; j < this.#text.length; j++) {
      while (q > 0 && (q === block.length || this.#text[j] !== block[q])) q = this.#fail[q - 1]!;
      if (this.#text[j] === block[q]) q++;
      if (q > best.run) {
        best.run = q;
        best.at = j - q + 1;
        if (q === block.length) break;
      }
    }
    return best;
  }

  /** Calls `found` with each place's start, in order, while it returns true. */
  #scan(from: number, to: number, found: (at: number) => boolean): void {
    const block = this.#block;
    const m = block.length;
    let q = 0;
    for (let j = from; j < to; j++) {
      this.#step();
      while (q > 0 && this.#text[j] !== block[q]) q = this.#fail[q - 1]!;
      if (this.#text[j] === block[q]) q++;
      if (q === m) {
        if (!found(j - m + 1)) return;
        q = this.#fail[q - 1]!;
      }
    }
  }
}

function failureOf(block: Int32Array): Int32Array {
  const fail = new Int32Array(block.length);
  let k = 0;
  for (let i = 1; i < block.length; i++) {
    while (k > 0 && block[i] !== block[k]) k = fail[k - 1]!;
    if (block[i] === block[k]) k++;
    fail[i] = k;
  }
  return fail;
}

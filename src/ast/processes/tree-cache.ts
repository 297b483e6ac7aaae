/**
 * Parsed trees kept between searches of one run. Parsing is ~80% of a search (measured: a dense pattern over 3,005
 * JavaScript files spends 4.5 s parsing and 0.9 s matching on one core), and an agent searches the same tree again
 * and again — a refined pattern, then ast_edit with the pattern it just searched. A tree is reused only when the
 * file's text is exactly the text it was parsed from (the file is read on every search anyway), so a write by
 * anyone, at any time, can never be answered from a stale tree.
 */
import { parse, type SgRoot } from "@ast-grep/napi";

/**
 * Measured bytes of ast-grep tree per character of source: TypeScript declarations 15, JavaScript 29, Python 35
 * (26–30 M characters each). The budget counts 32.
 */
export const BYTES_PER_CHAR = 32;

/**
 * A tree used by one of the last few searches is not evicted: otherwise, when the files searched outnumber the
 * budget, each search would evict the trees it is about to reach and reuse none; and an agent alternating two
 * patterns over the same files keeps both working sets.
 */
const KEEP_SEARCHES = 4;

interface Entry {
  readonly text: string;
  readonly root: SgRoot;
  /** The search that last used it. */
  search: number;
}

export class TreeCache {
  /** Map order is recency: the first entry is the least recently used. */
  readonly #entries = new Map<string, Entry>();
  readonly #budgetChars: number;
  #chars = 0;
  /** Characters of trees let go since the last `takeReleased` (their native memory waits for a garbage collection). */
  #released = 0;

  constructor(budgetBytes: number) {
    this.#budgetChars = Math.max(0, Math.floor(budgetBytes / BYTES_PER_CHAR));
  }

  /**
   * The tree of `text` (the current content of `file`): the kept one when the text is unchanged, else a new parse,
   * kept when it fits. When full, it evicts the least recently used trees that none of the last few searches used.
   */
  tree(
    lang: string,
    file: string,
    text: string,
    search: number,
  ): { root: SgRoot; reused: boolean; held: boolean } {
    const key = `${lang}\0${file}`;
    const kept = this.#entries.get(key);
    if (kept) {
      this.#entries.delete(key);
      if (kept.text === text) {
        kept.search = search;
        this.#entries.set(key, kept);
        return { root: kept.root, reused: true, held: true };
      }
      this.#chars -= kept.text.length;
      this.#released += kept.text.length;
    }
    const root = parse(lang, text);
    if (text.length <= this.#budgetChars) {
      for (const [k, e] of this.#entries) {
        if (this.#chars + text.length <= this.#budgetChars || search - e.search < KEEP_SEARCHES) break;
        this.#entries.delete(k);
        this.#chars -= e.text.length;
        this.#released += e.text.length;
      }
      if (this.#chars + text.length <= this.#budgetChars) {
        this.#entries.set(key, { text, root, search });
        this.#chars += text.length;
        return { root, reused: false, held: true };
      }
    }
    this.#released += text.length;
    return { root, reused: false, held: false };
  }

  /** Drops the tree of a file that can no longer be read (deleted, or no longer a file). */
  forget(lang: string, file: string): void {
    const key = `${lang}\0${file}`;
    const kept = this.#entries.get(key);
    if (!kept) return;
    this.#entries.delete(key);
    this.#chars -= kept.text.length;
    this.#released += kept.text.length;
  }

  /** Characters of trees let go since the last call, and starts counting again. */
  takeReleased(): number {
    const released = this.#released;
    this.#released = 0;
    return released;
  }

  get size(): number {
    return this.#entries.size;
  }

  clear(): void {
    this.#released += this.#chars;
    this.#entries.clear();
    this.#chars = 0;
  }
}

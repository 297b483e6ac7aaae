/**
 * The literal prefilter's words. A pattern's word is a leaf's text or part of it, so a matching file holds it; where
 * the word starts or ends a token it also stands at a token's edge in the file, and an ASCII letter, digit or `_`
 * beside it would have made the token longer (`require` inside `__webpack_require__` is no match). The one token
 * that ends in such a character right before another starts is a number (`1if`, `10px`), so a word preceded by a
 * run that starts with a digit is kept.
 */

export interface LiteralWord {
  readonly text: string;
  /** The word starts (ends) a token of the pattern: the file's occurrence must not continue a word there. */
  readonly left: boolean;
  readonly right: boolean;
}

/** Stands where a metavariable was: any text may be beside a word there. */
const HOLE = "\u0000";

/** The words (two or more letters, digits or `_`) of a pattern whose metavariables `metavar` finds. */
export function literalWords(pattern: string, metavar: RegExp): LiteralWord[] {
  const text = pattern.replace(metavar, HOLE);
  const words: LiteralWord[] = [];
  for (const m of text.matchAll(/[\p{L}\p{N}_]{2,}/gu)) {
    const word = m[0];
    // A number's digits may run into its suffix (`10ms`, `1u32`): a word that starts with a digit is not bounded.
    const bounded = /^[\p{L}_]/u.test(word);
    const left = bounded && text[m.index - 1] !== HOLE;
    const right = bounded && text[m.index + word.length] !== HOLE;
    words.push({ text: word, left, right });
  }
  return mergedWords([words]);
}

/** The same words, once each, for a rule made of several patterns. */
export function mergedWords(lists: readonly (readonly LiteralWord[])[]): LiteralWord[] {
  const words = new Map<string, LiteralWord>();
  for (const word of lists.flat()) words.set(`${Number(word.left)}${Number(word.right)}${word.text}`, word);
  return [...words.values()];
}

/** ASCII letters, digits and `_`: the characters every grammar of the bundle reads as continuing a word. */
function joins(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x5f
  );
}

const isDigit = (code: number) => code >= 0x30 && code <= 0x39;

/** Whether `text` holds `word` where a pattern's token could match it. Linear in the text. */
export function holdsWord(text: string, word: LiteralWord): boolean {
  // The start of the word-run that ends at `known`, from an earlier occurrence: a scan back stops there.
  let known = -1;
  let knownStart = -1;
  const runStart = (end: number): number => {
    let at = end;
    while (at > 0 && joins(text.charCodeAt(at - 1))) {
      at--;
      if (at === known) return knownStart;
    }
    return at;
  };
  for (let at = text.indexOf(word.text); at !== -1; at = text.indexOf(word.text, at + 1)) {
    if (word.right && joins(text.charCodeAt(at + word.text.length))) continue;
    if (!word.left || at === 0 || !joins(text.charCodeAt(at - 1))) return true;
    const start = runStart(at - 1);
    known = at - 1;
    knownStart = start;
    if (isDigit(text.charCodeAt(start))) return true;
  }
  return false;
}

/**
 * The globs language servers send (file watchers, file operation filters), matched without backtracking. As a
 * regular expression, `*a*a*a*a*a*a*a*a*a*a*b` against a 40-character name took 28 s of the host's thread (each
 * more `*a`, ten times that) — and a server is code the repository may steer, run confined when it can be. Here a
 * glob is a small automaton run over the path once: time linear in the path and the glob.
 *
 * LSP's syntax: `/` separates segments, `*` is any run within a segment, `?` one character of it, `**` as a whole
 * segment any number of segments (none too), `{a,b}` either (nested too), `[a-z]` / `[!a-z]` a character of a
 * class or not; `\` takes the next character as it is. Dotfiles match like any other.
 */

type Step =
  /** One character that `accepts`; then `next`. */
  | { readonly kind: "char"; readonly accepts: (c: string) => boolean; next: number }
  /** Either way, consuming nothing. */
  | { readonly kind: "split"; readonly outs: number[] }
  | { readonly kind: "done" };

/** A piece of the automaton under construction: where it starts, and the steps whose `next` is still open. */
interface Piece {
  readonly start: number;
  readonly open: number[];
}

/** The longest glob compiled: what a server sends is a pattern, not a file. */
const MAX_GLOB = 10_000;

export function globMatcher(glob: string, options: { ignoreCase?: boolean } = {}): (path: string) => boolean {
  const fold = options.ignoreCase ? (s: string) => s.toLowerCase() : (s: string) => s;
  if (glob.length > MAX_GLOB) return () => false;
  const automaton = new Compiler(fold(glob), fold).compile();
  return (path) => run(automaton, fold(path));
}

interface Automaton {
  readonly steps: readonly Step[];
  readonly start: number;
}

class Compiler {
  readonly #glob: string;
  readonly #fold: (s: string) => string;
  #at = 0;
  readonly steps: Step[] = [];

  constructor(glob: string, fold: (s: string) => string) {
    this.#glob = glob;
    this.#fold = fold;
  }

  compile(): Automaton {
    const whole = this.#sequence(false);
    this.#close(whole, this.#add({ kind: "done" }));
    return { steps: this.steps, start: whole.start };
  }

  /** Items up to the end, or (inside braces) up to the `,` or `}` that ends this alternative. */
  #sequence(inBraces: boolean): Piece {
    let piece: Piece | undefined;
    while (this.#at < this.#glob.length) {
      const c = this.#glob[this.#at]!;
      if (inBraces && (c === "," || c === "}")) break;
      const item = this.#item();
      piece = piece ? this.#join(piece, item) : item;
    }
    return piece ?? this.#empty();
  }

  #item(): Piece {
    const glob = this.#glob;
    const c = glob[this.#at]!;
    if (c === "*") {
      const segmentStart = this.#at === 0 || glob[this.#at - 1] === "/";
      let end = this.#at;
      while (glob[end] === "*") end++;
      const whole = end - this.#at === 2 && segmentStart && (glob[end] === "/" || this.#endsAlternative(end));
      this.#at = end;
      if (!whole) return this.#loop((ch) => ch !== "/");
      // `**/`: any number of whole segments, each with its `/`; `**` at the end: anything.
      if (glob[end] === "/") {
        this.#at++;
        const segments = this.#join(
          this.#loop(() => true),
          this.#char((ch) => ch === "/"),
        );
        return this.#optional(segments);
      }
      return this.#loop(() => true);
    }
    // `a/**` also matches `a` itself: the `/` before a last `**` is optional with what follows it.
    if (c === "/" && glob.startsWith("**", this.#at + 1) && this.#endsAlternative(this.#at + 3)) {
      this.#at += 3;
      return this.#optional(
        this.#join(
          this.#char((ch) => ch === "/"),
          this.#loop(() => true),
        ),
      );
    }
    if (c === "?") {
      this.#at++;
      return this.#char((ch) => ch !== "/");
    }
    if (c === "[") {
      const close = this.#classEnd();
      if (close !== -1) return this.#class(close);
    }
    if (c === "{") {
      this.#at++;
      const alternatives: Piece[] = [this.#sequence(true)];
      while (glob[this.#at] === ",") {
        this.#at++;
        alternatives.push(this.#sequence(true));
      }
      if (glob[this.#at] === "}") this.#at++;
      return this.#either(alternatives);
    }
    if (c === "\\" && this.#at + 1 < glob.length) this.#at++;
    const literal = glob[this.#at++]!;
    return this.#char((ch) => ch === literal);
  }

  /** Whether `at` is the end of the glob or of an alternative in braces. */
  #endsAlternative(at: number): boolean {
    return at === this.#glob.length || this.#glob[at] === "," || this.#glob[at] === "}";
  }

  /** Where the class opened at `#at` closes (a `]` right after `[` or `[!` is one of its characters); -1 if never. */
  #classEnd(): number {
    let i = this.#at + 1;
    if (this.#glob[i] === "!" || this.#glob[i] === "^") i++;
    if (this.#glob[i] === "]") i++;
    const close = this.#glob.indexOf("]", i);
    return close;
  }

  #class(close: number): Piece {
    let body = this.#glob.slice(this.#at + 1, close);
    this.#at = close + 1;
    const negated = body.startsWith("!") || body.startsWith("^");
    if (negated) body = body.slice(1);
    const ranges: [string, string][] = [];
    for (let i = 0; i < body.length; i++) {
      const from = body[i]!;
      if (body[i + 1] === "-" && i + 2 < body.length) {
        ranges.push([from, body[i + 2]!]);
        i += 2;
      } else ranges.push([from, from]);
    }
    const fold = this.#fold;
    return this.#char((ch) => {
      if (ch === "/") return false;
      const inside = ranges.some(([lo, hi]) => fold(lo) <= ch && ch <= fold(hi));
      return inside !== negated;
    });
  }

  #add(step: Step): number {
    this.steps.push(step);
    return this.steps.length - 1;
  }

  #char(accepts: (c: string) => boolean): Piece {
    const at = this.#add({ kind: "char", accepts, next: -1 });
    return { start: at, open: [at] };
  }

  /** Zero or more characters that `accepts`. */
  #loop(accepts: (c: string) => boolean): Piece {
    const split = this.#add({ kind: "split", outs: [] });
    const char = this.#add({ kind: "char", accepts, next: split });
    (this.steps[split] as { outs: number[] }).outs.push(char);
    return { start: split, open: [split] };
  }

  #optional(piece: Piece): Piece {
    const split = this.#add({ kind: "split", outs: [piece.start] });
    return { start: split, open: [split, ...piece.open] };
  }

  #either(alternatives: Piece[]): Piece {
    const split = this.#add({ kind: "split", outs: alternatives.map((a) => a.start) });
    return { start: split, open: alternatives.flatMap((a) => a.open) };
  }

  #empty(): Piece {
    const split = this.#add({ kind: "split", outs: [] });
    return { start: split, open: [split] };
  }

  #join(first: Piece, second: Piece): Piece {
    this.#close(first, second.start);
    return { start: first.start, open: second.open };
  }

  /** Points every open end of `piece` at `to`. */
  #close(piece: Piece, to: number): void {
    for (const at of piece.open) {
      const step = this.steps[at]!;
      if (step.kind === "char") step.next = to;
      else if (step.kind === "split") step.outs.push(to);
    }
  }
}

/** The automaton over `path`, every state at once (Thompson's construction): each character looked at once. */
function run({ steps, start }: Automaton, path: string): boolean {
  const seen = new Int32Array(steps.length).fill(-1);
  let current: number[] = [];
  let generation = 0;
  const add = (into: number[], at: number) => {
    const stack = [at];
    while (stack.length) {
      const i = stack.pop()!;
      if (seen[i] === generation) continue;
      seen[i] = generation;
      const step = steps[i]!;
      if (step.kind === "split") for (const out of step.outs) stack.push(out);
      else into.push(i);
    }
  };
  add(current, start);
  // By UTF-16 unit, as the glob's characters are read (a character past U+FFFF is two of them on both sides).
  for (let k = 0; k < path.length; k++) {
    const ch = path[k]!;
    generation++;
    const next: number[] = [];
    for (const i of current) {
      const step = steps[i]!;
      if (step.kind === "char" && step.accepts(ch)) add(next, step.next);
    }
    if (!next.length) return false;
    current = next;
  }
  return current.some((i) => steps[i]!.kind === "done");
}

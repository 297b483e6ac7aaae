/**
 * Whether a rename's new name is an identifier of the file's language, checked before the server is asked: tsgo
 * applies a rename to "1bad" and leaves the code broken (seen), so the check is runbound's. The shapes follow each
 * language's grammar; reserved words are refused where the language refuses them as member names too (a JavaScript
 * method may be called `delete`, a Python one may not be called `class`).
 */

interface Grammar {
  readonly name: string;
  readonly shape: RegExp;
  readonly rule: string;
  readonly reserved: ReadonlySet<string>;
}

const words = (text: string): ReadonlySet<string> => new Set(text.split(/\s+/).filter(Boolean));

const C_WORDS = `auto break case char const continue default do double else enum extern float for goto if inline int long
  register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while _Bool
  _Complex _Imaginary _Alignas _Alignof _Atomic _Generic _Noreturn _Static_assert _Thread_local`;
const CPP_WORDS = `${C_WORDS} alignas alignof and and_eq asm bitand bitor bool catch char8_t char16_t char32_t class
  co_await co_return co_yield compl concept const_cast consteval constexpr constinit decltype delete dynamic_cast
  explicit export false friend mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected
  public reinterpret_cast requires static_assert static_cast template this thread_local throw true try typeid typename
  using virtual wchar_t xor xor_eq`;

const JS: Omit<Grammar, "name"> = {
  shape: /^[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*$/u,
  rule: "a letter, `_` or `$`, then letters, digits, `_` or `$`",
  reserved: new Set(),
};
const C_LIKE = {
  shape: /^[\p{XID_Start}_][\p{XID_Continue}]*$/u,
  rule: "a letter or `_`, then letters, digits or `_`",
};

const GRAMMARS: Record<string, Grammar> = {
  typescript: { name: "TypeScript", ...JS },
  typescriptreact: { name: "TypeScript", ...JS },
  javascript: { name: "JavaScript", ...JS },
  javascriptreact: { name: "JavaScript", ...JS },
  python: {
    name: "Python",
    ...C_LIKE,
    reserved:
      words(`False None True and as assert async await break class continue def del elif else except finally
      for from global if import in is lambda nonlocal not or pass raise return try while with yield`),
  },
  go: {
    name: "Go",
    shape: /^[\p{L}_][\p{L}\p{Nd}_]*$/u,
    rule: "a letter or `_`, then letters, digits or `_`",
    reserved: words(`break case chan const continue default defer else fallthrough for func go goto if import
      interface map package range return select struct switch type var`),
  },
  c: { name: "C", ...C_LIKE, reserved: words(C_WORDS) },
  cpp: { name: "C++", ...C_LIKE, reserved: words(CPP_WORDS) },
  rust: {
    name: "Rust",
    shape: /^(r#)?[\p{XID_Start}_][\p{XID_Continue}]*$/u,
    rule: "a letter or `_`, then letters, digits or `_` (a keyword as `r#name`)",
    reserved:
      words(`_ as break const continue crate else enum extern false fn for if impl in let loop match mod move
      mut pub ref return self Self static struct super trait true type unsafe use where while async await dyn abstract
      become box do final macro override priv typeof unsized virtual yield try`),
  },
  dart: {
    name: "Dart",
    shape: /^[A-Za-z_$][A-Za-z0-9_$]*$/,
    rule: "a letter, `_` or `$`, then letters, digits, `_` or `$`",
    reserved:
      words(`assert break case catch class const continue default do else enum extends false final finally for
      if in is new null rethrow return super switch this throw true try var void while with`),
  },
};

/** Longer than any name a person reads as one. */
export const MAX_IDENTIFIER = 255;

/** Why `name` cannot be an identifier in `languageId`, or undefined when it can (or the language is not known). */
export function identifierProblem(name: string, languageId: string): string | undefined {
  if (name.length > MAX_IDENTIFIER)
    return `is ${name.length.toLocaleString("en-US")} characters long; a name may have at most ${MAX_IDENTIFIER}`;
  // Invisible in every editor, and a second name that looks like the first (JavaScript even allows ZWJ and ZWNJ).
  const invisible = /\p{Cf}/u.exec(name);
  if (invisible)
    return `contains an invisible format character (U+${(invisible[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")} at character ${invisible.index + 1}); type the name without it`;
  const grammar = GRAMMARS[languageId];
  if (!grammar) return undefined;
  if (!grammar.shape.test(name)) return `is not a ${grammar.name} identifier (it must be ${grammar.rule})`;
  if (grammar.reserved.has(name)) return `is a reserved word in ${grammar.name}`;
  return undefined;
}

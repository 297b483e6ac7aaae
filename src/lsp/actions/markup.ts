/**
 * Server markup as plain text for the model: the HTML entities and markdown escapes that servers put in prose
 * (pyright writes a docstring's indentation as `&nbsp;` and `allow_redirects` as `allow\_redirects`) decoded, and
 * the two trailing spaces of a markdown line break dropped, images inlined as data: URLs left out. Code — fenced
 * blocks and inline spans — is left as is.
 */
import { withoutTrailing } from "../../files/text.js";

const ENTITIES: Record<string, string> = { nbsp: " ", lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

function decodeEntity(whole: string, name: string): string {
  if (name.startsWith("#x") || name.startsWith("#X"))
    return codePoint(Number.parseInt(name.slice(2), 16), whole);
  if (name.startsWith("#")) return codePoint(Number.parseInt(name.slice(1), 10), whole);
  return ENTITIES[name] ?? whole;
}

function codePoint(n: number, whole: string): string {
  return Number.isInteger(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : whole;
}

/** Prose outside inline code spans: entities decoded, backslash escapes of markdown punctuation removed. */
function plainProse(text: string): string {
  return text
    .split(/(`[^`\n]*`)/)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part
            // An image inlined as a data: URL (the CSS and HTML servers' "Baseline" badge, ~2 KB of base64 an
            // answer) says nothing a model can read: left out.
            .replace(/!\[[^\]\n]*\]\(data:[^)\s]*\)/g, "")
            .replace(/&(#[xX][0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, decodeEntity)
            .replace(/\\([\\`*_{}[\]()#+\-.!|<>~])/g, "$1"),
    )
    .join("");
}

/** `text` with prose normalized and fenced code blocks untouched. */
export function plainMarkup(text: string): string {
  const lines = text.split("\n");
  let fence = "";
  return lines
    .map((line) => {
      const opens = /^\s*(```+|~~~+)/.exec(line)?.[1];
      if (fence) {
        if (opens && opens[0] === fence[0] && opens.length >= fence.length) fence = "";
        return line;
      }
      if (opens) {
        fence = opens;
        return line;
      }
      // Markdown's hard line break: two spaces or more at the end.
      return withoutTrailing(plainProse(line), " ", 2);
    })
    .join("\n");
}

/**
 * A display as the model reads it. Jupyter sends a value in several representations at once; a notebook shows the
 * richest, and the model gets text: Markdown, JSON and plain text as they are; HTML as its text (tables as
 * tables) where the plain text is only an object's name (`<IPython.core.display.HTML object>` said nothing of its
 * content); SVG, LaTeX, JavaScript and widgets said as what they are.
 */
import { convert } from "html-to-text";

/**
 * The HTML a cell may have turned to text, all its displays together: the conversion runs on the host's thread
 * (~0.8 ms a KB of table), and an answer keeps 32 KB of text. Past it a display says so instead.
 */
export const HTML_BUDGET = 64_000;

/** What is left of a cell's HTML budget (one per cell). */
export interface HtmlBudget {
  chars: number;
}

/** `<IPython.core.display.HTML object>`, `<__main__.Point object at 0x7f…>`, `<…Styler at 0x7f…>`: a name, not a value. */
const ONLY_A_NAME = /^<[\w.]+( object)?( at 0x[0-9a-f]+)?>$/;

/**
 * `image`: the display also has an image (shown as one); `cut`: the representations runbound's server cut as too
 * large to carry (said apart), so a name is then not all there was.
 */
export function displayText(
  data: Readonly<Record<string, unknown>>,
  image: boolean,
  cut: readonly string[] = [],
  budget: HtmlBudget = { chars: HTML_BUDGET },
): string | undefined {
  const plain = typeof data["text/plain"] === "string" ? (data["text/plain"] as string) : undefined;
  const markdown = data["text/markdown"];
  if (typeof markdown === "string") return markdown;
  if (data["application/json"] !== undefined) return JSON.stringify(data["application/json"], null, 2);
  const named = plain !== undefined && ONLY_A_NAME.test(plain.trim());
  if (plain !== undefined && !named) return image && /^<Figure /.test(plain) ? undefined : plain;
  const html = data["text/html"];
  if (typeof html === "string") return htmlText(html, budget);
  const latex = data["text/latex"];
  if (typeof latex === "string") return `(LaTeX) ${latex}`;
  const svg = data["image/svg+xml"];
  if (typeof svg === "string")
    return `(an SVG image of ${svg.length.toLocaleString("en-US")} characters, not shown)`;
  if (typeof data["application/javascript"] === "string") return "(a JavaScript display, not run here)";
  if (data["application/vnd.jupyter.widget-view+json"] !== undefined)
    return "(an interactive widget: it shows nothing outside a notebook)";
  if (named && cut.length) return plain!.trim();
  if (named && !image)
    return `${plain!.trim()} (the object's only representation is its name: print its attributes, or give it a __repr__)`;
  return undefined;
}

function htmlText(html: string, budget: HtmlBudget): string {
  if (budget.chars <= 0)
    return `(an HTML display of ${html.length.toLocaleString("en-US")} characters, not converted: this cell's displays already used the ${HTML_BUDGET.toLocaleString("en-US")} characters of HTML an answer converts)`;
  const cut = html.length > budget.chars;
  const taken = cut ? html.slice(0, budget.chars) : html;
  budget.chars -= taken.length;
  const text = convert(taken, {
    wordwrap: false,
    selectors: [
      {
        selector: "table",
        format: "dataTable",
        options: { maxColumnWidth: 60, uppercaseHeaderCells: false },
      },
      { selector: "a", options: { ignoreHref: true } },
      // A heading keeps its case, as a notebook shows it (html-to-text's default upper-cased `<h3>Report</h3>`).
      ...["h1", "h2", "h3", "h4", "h5", "h6"].map((selector) => ({
        selector,
        options: { uppercase: false },
      })),
      { selector: "img", format: "skip" },
      { selector: "style", format: "skip" },
      { selector: "script", format: "skip" },
    ],
  }).trim();
  const body = text || "(an HTML display with no text)";
  return cut
    ? `${body}\n(the HTML was cut at ${taken.length.toLocaleString("en-US")} of ${html.length.toLocaleString("en-US")} characters)`
    : body;
}

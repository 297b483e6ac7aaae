/**
 * Whether a list answer is complete: "0 references" from a server still indexing reads the same as "no
 * references", and a model then concludes absence. A list answer carries `complete` (and, when false, the reasons
 * as `incomplete_because`) in structuredContent; its text ends with one `Incomplete: …` line when it is not.
 */

/** The answer with `complete` set from `reasons` (those given; none → complete), said in its text when not. */
export function withCompleteness<S extends object>(
  answer: { text: string; structured: S },
  reasons: readonly (string | undefined | false)[],
): { text: string; structured: S & { complete: boolean; incomplete_because?: string[] } } {
  const why = reasons.filter((r): r is string => typeof r === "string" && r !== "");
  if (why.length === 0) return { ...answer, structured: { ...answer.structured, complete: true } };
  return {
    text: `${answer.text}\nIncomplete: ${why.join("; ")}.`,
    structured: { ...answer.structured, complete: false, incomplete_because: why },
  };
}

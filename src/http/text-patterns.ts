/** What each pattern of a schema asks for, in words: a refusal names these, not the regular expression. */
const MEANINGS = new Map<string, string>();

/** A schema's pattern, with the words a refusal gives for text that does not match it. */
export function textPattern(pattern: string, meaning: string): string {
  MEANINGS.set(pattern, meaning);
  return pattern;
}

export function patternMeaning(pattern: unknown): string {
  return (typeof pattern === 'string' ? MEANINGS.get(pattern) : undefined) ?? 'is not in the expected format';
}

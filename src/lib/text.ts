import { distance } from 'fastest-levenshtein';

// Letters whose lower case String.prototype.toLowerCase() gives differently from PostgreSQL's
// lower(), which maps each character alone: a word-final Σ (ς, by context) and İ (i plus a
// combining dot, two characters).
const CONTEXTUAL_CASE = /[\u0130\u03a3]/;

/** Lower case as PostgreSQL's lower() gives it: each character alone ("ΟΔΟΣ" → "οδοσ", "İ" → "i"). */
export function foldCase(text: string): string {
  if (!CONTEXTUAL_CASE.test(text)) return text.toLowerCase();
  let folded = '';
  for (const character of text) folded += character === '\u0130' ? 'i' : character.toLowerCase();
  return folded;
}

/**
 * The known name an unknown one was most likely meant to be: within two edits (a swapped pair of
 * letters is two) and at most half its letters, ignoring case; none when nothing is that near.
 */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  const wanted = name.toLowerCase();
  let best: { name: string; edits: number } | undefined;
  for (const candidate of known) {
    const edits = distance(wanted, candidate.toLowerCase());
    if (edits <= 2 && edits * 2 <= Math.max(wanted.length, candidate.length) && (best === undefined || edits < best.edits)) best = { name: candidate, edits };
  }
  return best?.name;
}

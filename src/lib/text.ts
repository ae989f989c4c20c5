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

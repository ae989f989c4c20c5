import { describe, expect, it } from 'vitest';
import { foldCase } from '../../src/lib/text.js';

describe('foldCase', () => {
  it('lowers each character alone, as PostgreSQL does', () => {
    expect(foldCase('Émile ÖZ')).toBe('émile öz');
    expect(foldCase('ΠΑΠΑΔΟΠΟΥΛΟΣ')).toBe('παπαδοπουλοσ');
    expect('ΠΑΠΑΔΟΠΟΥΛΟΣ'.toLowerCase()).toBe('παπαδοπουλος');
    expect(foldCase('İlker')).toBe('ilker');
    expect(foldCase('İ').length).toBe(1);
    expect(foldCase('ς')).toBe('ς');
    expect(foldCase('')).toBe('');
  });
});

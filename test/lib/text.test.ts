import { describe, expect, it } from 'vitest';
import { foldCase, nearestName } from '../../src/lib/text.js';

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

describe('nearestName: the known field an unknown one was likely meant to be', () => {
  const known = ['name', 'email', 'first_name', 'last_name', 'status', 'start_time', 'id', 'notes'];
  it.each([
    ['emial', 'email'],
    ['Email', 'email'],
    ['stauts', 'status'],
    ['start_tme', 'start_time'],
    ['firstname', 'first_name'],
    ['note', 'notes'],
    ['nmae', 'name'],
  ])('%s → %s', (name, meant) => expect(nearestName(name, known)).toBe(meant));
  it.each(['percent_off', 'ip_address', 'x', 'zzz'])('%s → none (nothing is near)', (name) => expect(nearestName(name, known)).toBeUndefined());
  it('prefers the nearest of several', () => expect(nearestName('stat', ['status', 'state'])).toBe('state'));
});

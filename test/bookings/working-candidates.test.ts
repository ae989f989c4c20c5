import { describe, expect, it } from 'vitest';
import { LAST_STORABLE_INSTANT } from '../../src/modules/availability/repository.js';
import { startInstant, workingCandidates } from '../../src/modules/availability/index.js';
import { WEEKDAYS, type Schedule } from '../../src/modules/schedules/model.js';
import { type Candidate, type SlotContext } from '../../src/modules/availability/candidate.js';

const ALL_DAY: Schedule = { weekly: Object.fromEntries(WEEKDAYS.map((day) => [day, [{ start: '00:00', end: '24:00' }]])) as Schedule['weekly'], exceptions: [] };
const context: SlotContext = {
  timezone: 'Pacific/Honolulu',
  intervalMinutes: 30,
  earliest: 0,
  latest: Infinity,
  window: { noticeMinutes: 0, noticeRule: 'min_lead_minutes', advanceDays: Infinity, advanceRule: 'max_advance_days' },
  now: 0,
};
const agent = (durationMinutes: number): Candidate => ({
  agentId: 1,
  schedule: ALL_DAY,
  site: null,
  customHours: null,
  durationMinutes,
  customPriceCents: null,
  bufferBeforeMinutes: 0,
  bufferAfterMinutes: 0,
});

describe('workingCandidates at the end of storable time', () => {
  it('takes a booking that ends by 9999-12-31T23:59:59.999Z and refuses one that ends later', () => {
    // Honolulu is UTC−10: 13:00 local on 9999-12-31 is 23:00 UTC.
    const start = startInstant('9999-12-31', '13:00', context);
    expect(workingCandidates([agent(59)], '9999-12-31', start, context, true)).toHaveLength(1);
    expect(start + 60 * 60_000).toBeGreaterThan(LAST_STORABLE_INSTANT);
    expect(() => workingCandidates([agent(60)], '9999-12-31', start, context, true)).toThrow(/working hours/);
  });
});

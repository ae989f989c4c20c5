import type { Static } from 'typebox';
import type { App } from '../../core/app.js';
import { AppError } from '../../core/errors.js';
import { AUTH_ERRORS, errorResponses } from '../../http/schemas.js';
import { getSettingsAndSchedule } from '../settings/index.js';
import { BusyTimes } from './busy-times.js';
import { DaySlots } from './day-slots.js';
import { datesBetween, daysBetweenInclusive, localClock, localTime, type FreeSlot } from './engine.js';
import { findAgent, findLocation, findService } from './repository.js';
import { AvailabilityQuery, AvailabilityResponse } from './schemas.js';
import { cachedAvailabilityOfDays, loadCandidates, parseAgentChoice, serviceWindow, slotContextOf } from './service.js';
import { isCalendarDate } from '../../lib/time.js';

/** Contract §5: a range over 62 days, counting both ends, is refused. */
const MAX_RANGE_DAYS = 62;

function requireDate(field: string, value: string): string {
  if (!isCalendarDate(value)) throw new AppError('invalid_request', `${field} is not a calendar date`, { [field]: 'is not a calendar date' });
  return value;
}

function dateRange(query: { date?: string; date_from?: string; date_to?: string }): string[] {
  if (query.date !== undefined) {
    if (query.date_from !== undefined || query.date_to !== undefined) {
      throw new AppError('invalid_request', 'Give date, or date_from and date_to, not both', { date: 'cannot be combined with date_from or date_to' });
    }
    return [requireDate('date', query.date)];
  }
  if (query.date_from === undefined || query.date_to === undefined) {
    const missing = query.date_from === undefined ? 'date_from' : 'date_to';
    throw new AppError('invalid_request', 'Give date, or date_from and date_to', { [missing]: 'is required unless date is given' });
  }
  const from = requireDate('date_from', query.date_from);
  const to = requireDate('date_to', query.date_to);
  if (to < from) throw new AppError('invalid_request', 'date_to is before date_from', { date_to: 'must not be before date_from' });
  if (daysBetweenInclusive(from, to) > MAX_RANGE_DAYS) {
    throw new AppError('invalid_request', `The range covers more than ${MAX_RANGE_DAYS} days`, {
      date_to: `at most ${MAX_RANGE_DAYS} days from date_from, both included`,
    });
  }
  return datesBetween(from, to);
}

/**
 * The 200 body as JSON.stringify writes it, written directly: a month of slots of several agents
 * is hundreds of objects, and the schema's serializer took longer to write them than the search
 * took to find them. Dates and times are digits and signs; the zone name goes through
 * JSON.stringify.
 */
export function availabilityJson(body: Static<typeof AvailabilityResponse>): string {
  const { data } = body;
  const days = data.days.map(({ date, slots }) => `{"date":"${date}","slots":[${slotsJson(slots)}]}`);
  return `{"success":true,"data":{"timezone":${JSON.stringify(data.timezone)},"service_id":${data.service_id},"duration":${data.duration},"days":[${days.join(',')}]}}`;
}

type RenderedSlot = Static<typeof AvailabilityResponse>['data']['days'][number]['slots'][number];

// A day kept in DaySlots is the same array for every request that asks for it, so what is made
// of it is kept with it, and goes when it goes.
const renderedSlots = new WeakMap<readonly FreeSlot[], { timezone: string; seats: boolean; slots: RenderedSlot[] }>();
const writtenSlots = new WeakMap<readonly RenderedSlot[], string>();

function slotsJson(slots: readonly RenderedSlot[]): string {
  let json = writtenSlots.get(slots);
  if (json === undefined) {
    json = slots
      .map(
        (slot) =>
          `{"start_time":"${slot.start_time}","end_time":"${slot.end_time}","start_datetime":"${slot.start_datetime}","agent_ids":[${slot.agent_ids.join(',')}]${
            slot.seats_left === undefined ? '' : `,"seats_left":${slot.seats_left}`
          }}`,
      )
      .join(',');
    writtenSlots.set(slots, json);
  }
  return json;
}

/** Slots as the response shows them; with `seats` (a group service), each with the seats it has left. */
function render(slots: readonly FreeSlot[], timezone: string, seats: boolean): RenderedSlot[] {
  const rendered = renderedSlots.get(slots);
  if (rendered?.timezone === timezone && rendered.seats === seats) return rendered.slots;
  const made = slots.map((slot): RenderedSlot => {
    const start = localClock(slot.start, timezone);
    const shown: RenderedSlot = { start_time: start.time, end_time: localTime(slot.end, timezone), start_datetime: start.iso, agent_ids: slot.agentIds };
    if (seats) shown.seats_left = slot.seatsLeft;
    return shown;
  });
  renderedSlots.set(slots, { timezone, seats, slots: made });
  return made;
}

export default async function availabilityRoutes(app: App): Promise<void> {
  // This instance's busy times, reused while each agent's busy-time version stays the same, and
  // the days worked out from them (DaySlots).
  const kept = { busyTimes: new BusyTimes(), daySlots: new DaySlots() };

  app.get(
    '/availability',
    {
      config: { permission: 'availability:read' },
      schema: {
        operationId: 'getAvailability',
        summary: 'Free slots of a service per day (contract §6)',
        tags: ['availability'],
        querystring: AvailabilityQuery,
        response: { 200: AvailabilityResponse, ...errorResponses([400, ...AUTH_ERRORS]) },
      },
    },
    async (request, reply) => {
      const query = request.query;
      const dates = dateRange(query);
      const agent = parseAgentChoice(query.agent_id ?? 'any');
      // Independent reads at once: on PostgreSQL each is a round trip.
      const [service, agentRow, location, { settings, schedule: site }] = await Promise.all([
        findService(app.db, query.service_id),
        agent === 'any' ? undefined : findAgent(app.db, agent),
        query.location_id === undefined ? undefined : findLocation(app.db, query.location_id),
        getSettingsAndSchedule(app.db),
      ]);
      if (!service) throw new AppError('invalid_request', `Service ${query.service_id} does not exist`, { service_id: 'does not exist' });
      if (agent !== 'any' && !agentRow) throw new AppError('invalid_request', `Agent ${agent} does not exist`, { agent_id: 'does not exist' });
      if (query.location_id !== undefined && !location) {
        throw new AppError('invalid_request', `Location ${query.location_id} does not exist`, { location_id: 'does not exist' });
      }

      const context = serviceWindow(slotContextOf(settings), service);
      // A disabled service has no free slots, like an inactive agent or location: none can be booked.
      const candidates =
        service.status === 'active' && location?.status !== 'inactive'
          ? await loadCandidates(app.db, service, site, {
              agentIds: agent === 'any' ? undefined : [agent],
              locationId: query.location_id,
              duration: query.duration,
            })
          : [];
      const days = await cachedAvailabilityOfDays(app.db, kept, candidates, dates, service, context);
      return reply.type('application/json; charset=utf-8').serializer(availabilityJson).send({
        success: true as const,
        data: {
          timezone: context.timezone,
          service_id: service.id,
          // One agent's slots last its custom duration for the service (contract §6); `any`
          // names the service's, which agents with a custom one differ from.
          duration: query.duration ?? (agent !== 'any' && candidates[0] ? candidates[0].durationMinutes : service.duration),
          days: dates.map((date) => ({ date, slots: render(days.get(date) ?? [], context.timezone, service.capacity_max > 1) })),
        },
      });
    },
  );
}

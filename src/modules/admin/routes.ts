import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DateTime } from 'luxon';
import { Type } from 'typebox';
import type { App } from '../../core/app.js';
import { isDatabaseUnavailable } from '../../db/database.js';
import { validationDetails } from '../../http/error-handler.js';
import { AppError, notFound } from '../../core/errors.js';
import { Id, IdParams, MAX_INT32 } from '../../http/schemas.js';
import { createKey, listKeys, revokeKey } from '../api-keys/index.js';
import { countEntries, requestsPerKeySince, searchEntries, usagePerKeyHour, type AuditFilter, type StatusClass } from '../audit/index.js';
import { countOutbox, listOutbox, OUTBOX_STATUSES, type OutboxStatus } from '../mail/index.js';
import { readSiteSchedule, WEEKDAYS, type Weekday } from '../schedules/index.js';
import { changeSettings, parseSetting, type SiteSettings } from '../settings/index.js';
import { endpointsWithRecentDeliveries, retryDelivery } from '../webhooks/index.js';
import { field, fields, formOf, sendPage } from './page-reply.js';
import { bookingDetails, bookingMeta, calendarAgents, calendarBookings } from './repository.js';
import { formatPeriods, localToIso, parseWeeklyForm, usageChart, writeSiteWeekly } from './service.js';
import { adminSession, type AdminOptions } from './session-plugin.js';
import { bookingPage, calendarPage } from './views/calendar.js';
import { EMPTY_KEY_FORM, keysPage, type KeyFormValues, type KeysView } from './views/keys.js';
import { logPage, type LogFilterValues } from './views/log.js';
import { messagePage, outboxPage, settingsPage, type SettingsFormValues } from './views/other.js';
import { webhooksPage } from './views/webhooks.js';
import { textPattern } from '../../http/text-patterns.js';

const LOG_PER_PAGE = 50;
const OUTBOX_PER_PAGE = 50;
const DAY_MS = 86_400_000;

const DATETIME_LOCAL = textPattern('^(|\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2})?)$', 'must be a date and time as YYYY-MM-DDTHH:MM');
const PageQuery = Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }));

const LogQuery = Type.Object({
  key: Type.Optional(Type.String({ pattern: textPattern('^(|none|[1-9]\\d{0,9})$', 'must be a key id or none') })),
  status: Type.Optional(Type.Union([Type.Literal(''), Type.Literal('2xx'), Type.Literal('3xx'), Type.Literal('4xx'), Type.Literal('5xx')])),
  path: Type.Optional(Type.String({ maxLength: 200 })),
  from: Type.Optional(Type.String({ pattern: DATETIME_LOCAL })),
  to: Type.Optional(Type.String({ pattern: DATETIME_LOCAL })),
  page: PageQuery,
});
const CalendarQuery = Type.Object({
  date: Type.Optional(Type.String({ pattern: textPattern('^(|\\d{4}-\\d{2}-\\d{2})$', 'must be a date as YYYY-MM-DD') })),
  view: Type.Optional(Type.Union([Type.Literal('day'), Type.Literal('week')])),
});
const OutboxQuery = Type.Object({
  status: Type.Optional(Type.Union([Type.Literal(''), ...OUTBOX_STATUSES.map((s) => Type.Literal(s))])),
  page: PageQuery,
});

function errorPage(error: FastifyError, request: FastifyRequest): { status: number; message: string } {
  if (error instanceof AppError) return { status: error.statusCode, message: error.message };
  if (error.validation) {
    const details = Object.entries(validationDetails(error.validation)).map(([name, problem]) => `${name} ${String(problem)}`);
    return { status: 400, message: `Invalid ${error.validationContext ?? 'request'}: ${details.join('; ')}` };
  }
  if (isDatabaseUnavailable(error)) return { status: 503, message: 'The database is unavailable; try again shortly.' };
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return { status: error.statusCode, message: 'The request could not be understood.' };
  }
  request.log.error({ err: error }, 'admin page failed');
  return { status: 500, message: 'Something went wrong; the error has been logged.' };
}

/** The admin page: server-rendered HTML behind a password, mounted at /admin outside the API root. */
export default async function adminRoutes(app: App, options: AdminOptions): Promise<void> {
  const { db } = app;
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { status, message } = errorPage(error, request);
    return sendPage(request, reply, { status, title: 'Error', body: messagePage(status === 404 ? 'Not found' : 'Error', message) });
  });
  app.setNotFoundHandler((request, reply) =>
    sendPage(request, reply, { status: 404, title: 'Not found', body: messagePage('Not found', `There is no admin page ${request.url.split('?', 1)[0]}.`) }),
  );
  await adminSession(app, options);

  const hidden = { hide: true };

  app.get('/', { schema: hidden }, async (_request, reply) => reply.redirect('/admin/keys', 303));

  // ---- API keys --------------------------------------------------------------------------
  const showKeys = async (request: FastifyRequest, reply: FastifyReply, extra: Partial<KeysView> & { status?: number } = {}) => {
    const [keys, requests24h, { timezone: zone }] = await Promise.all([
      listKeys(db),
      requestsPerKeySince(db, new Date(Date.now() - DAY_MS).toISOString()),
      request.site(),
    ]);
    const { status, ...rest } = extra;
    const view: KeysView = { keys, requests24h, zone, csrf: request.adminSession!.csrfToken, form: EMPTY_KEY_FORM, ...rest };
    return sendPage(request, reply, { title: 'API keys', active: '/admin/keys', body: keysPage(view), ...(status ? { status } : {}) });
  };

  app.get('/keys', { schema: { ...hidden, querystring: Type.Object({ revoked: Type.Optional(Id()) }) } }, async (request, reply) => {
    const { revoked } = request.query;
    if (revoked === undefined) return showKeys(request, reply);
    const key = (await listKeys(db)).find((k) => k.id === revoked);
    return showKeys(request, reply, key ? { message: `Key “${key.name}” (${key.prefix}…) is revoked.` } : {});
  });

  app.post('/keys', { schema: hidden }, async (request, reply) => {
    const form = formOf(request);
    const values: KeyFormValues = {
      name: field(form, 'name'),
      type: field(form, 'type') === 'live' ? 'live' : 'test',
      permissions: fields(form, 'permissions'),
      per_minute: field(form, 'per_minute').trim(),
      per_hour: field(form, 'per_hour').trim(),
    };
    const limit = (name: string, raw: string): number | undefined => {
      if (raw === '') return undefined;
      if (!/^\d{1,7}$/.test(raw)) throw new AppError('validation_failed', `${name} must be a whole number from 1 to 1000000`);
      return Number(raw);
    };
    try {
      const created = await createKey(db, {
        name: values.name,
        type: values.type,
        permissions: values.permissions,
        perMinute: limit('Requests per minute', values.per_minute),
        perHour: limit('Requests per hour', values.per_hour),
      });
      return await showKeys(request, reply, { created });
    } catch (error) {
      if (error instanceof AppError && error.code === 'validation_failed') {
        return showKeys(request, reply, { status: 422, form: values, error: `The key was not created: ${error.message}.` });
      }
      throw error;
    }
  });

  app.post('/keys/:id/revoke', { schema: { ...hidden, params: IdParams } }, async (request, reply) => {
    const key = await revokeKey(db, request.params.id);
    return reply.redirect(`/admin/keys?revoked=${key.id}`, 303);
  });

  // ---- Request log -----------------------------------------------------------------------
  app.get('/log', { schema: { ...hidden, querystring: LogQuery } }, async (request, reply) => {
    const q = request.query;
    const { timezone: zone } = await request.site();
    const values: LogFilterValues = { key: q.key ?? '', status: q.status ?? '', path: (q.path ?? '').trim(), from: q.from ?? '', to: q.to ?? '' };
    const instant = (name: string, value: string): string | undefined => {
      if (value === '') return undefined;
      const iso = localToIso(value, zone);
      if (!iso) throw new AppError('invalid_request', `${name} is not a valid date and time`);
      return iso;
    };
    // The pattern lets ten digits through; ids stop at the 32-bit columns' end.
    if (values.key !== 'none' && Number(values.key) > MAX_INT32) throw new AppError('invalid_request', `No key has the id ${values.key}`);
    const filter: AuditFilter = {
      ...(values.key === 'none' ? { keyId: null } : values.key ? { keyId: Number(values.key) } : {}),
      ...(values.status ? { statusClass: Number(values.status[0]) as StatusClass } : {}),
      ...(values.path ? { pathContains: values.path } : {}),
    };
    const from = instant('From', values.from);
    const to = instant('To', values.to);
    if (from !== undefined) filter.from = from;
    if (to !== undefined) filter.to = to;
    if (from && to && from >= to) throw new AppError('invalid_request', 'From must be before To');

    // The chart covers the chosen range, or the last 24 hours of it when it is open-ended.
    const chartTo = to ? DateTime.fromISO(to, { zone: 'utc' }) : DateTime.utc();
    const chartFrom = from ? DateTime.fromISO(from, { zone: 'utc' }) : chartTo.minus({ hours: 24 });
    const pageNumber = q.page ?? 1;
    const [keys, total, entries, usage] = await Promise.all([
      listKeys(db),
      countEntries(db, filter),
      searchEntries(db, filter, { limit: LOG_PER_PAGE, offset: (pageNumber - 1) * LOG_PER_PAGE }),
      usagePerKeyHour(db, { ...filter, from: chartFrom.toISO() ?? undefined, to: chartTo.toISO() ?? undefined }),
    ]);
    return sendPage(request, reply, {
      title: 'Request log',
      active: '/admin/log',
      body: logPage({
        filter: values,
        keys,
        entries,
        page: pageNumber,
        total,
        totalPages: Math.ceil(total / LOG_PER_PAGE),
        chart: usageChart(usage, chartFrom, chartTo, zone),
        zone,
      }),
    });
  });

  // ---- Calendar and bookings -------------------------------------------------------------
  app.get('/calendar', { schema: { ...hidden, querystring: CalendarQuery } }, async (request, reply) => {
    const { timezone: zone } = await request.site();
    const view = request.query.view ?? 'day';
    const date = request.query.date ? DateTime.fromISO(request.query.date, { zone }) : DateTime.now().setZone(zone).startOf('day');
    if (!date.isValid) throw new AppError('invalid_request', `${request.query.date} is not a valid date`);
    const first = view === 'day' ? date : date.startOf('week');
    const days = Array.from({ length: view === 'day' ? 1 : 7 }, (_, i) => first.plus({ days: i }));
    const bookings = await calendarBookings(db, days[0]!.toISODate(), days.at(-1)!.toISODate());
    const agents = await calendarAgents(db, [...new Set(bookings.map((b) => b.agent_id))]);
    return sendPage(request, reply, { title: 'Calendar', active: '/admin/calendar', body: calendarPage({ view, date, days, agents, bookings, zone }) });
  });

  app.get('/bookings/:id', { schema: { ...hidden, params: IdParams } }, async (request, reply) => {
    const { id } = request.params;
    const booking = await bookingDetails(db, id);
    if (!booking) throw notFound('booking_not_found', 'Booking', id);
    const [meta, { timezone: zone }] = await Promise.all([bookingMeta(db, id), request.site()]);
    return sendPage(request, reply, { title: `Booking #${id}`, active: '/admin/calendar', body: bookingPage(booking, meta, zone) });
  });

  // ---- Settings --------------------------------------------------------------------------
  const timezones = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')];

  app.get('/settings', { schema: { ...hidden, querystring: Type.Object({ saved: Type.Optional(Type.String({ maxLength: 10 })) }) } }, async (request, reply) => {
    const [settings, schedule] = await Promise.all([request.site(), readSiteSchedule(db)]);
    const values: SettingsFormValues = {
      timezone: settings.timezone,
      slot_interval_minutes: String(settings.slot_interval_minutes),
      min_lead_minutes: String(settings.min_lead_minutes),
      weekly: Object.fromEntries(WEEKDAYS.map((d) => [d, formatPeriods(schedule.weekly[d] ?? [])])) as Record<Weekday, string>,
    };
    return sendPage(request, reply, {
      title: 'Settings',
      active: '/admin/settings',
      body: settingsPage({
        values,
        problems: {},
        timezones,
        exceptions: schedule.exceptions.length,
        csrf: request.adminSession!.csrfToken,
        saved: request.query.saved !== undefined,
      }),
    });
  });

  app.post('/settings', { schema: hidden }, async (request, reply) => {
    const form = formOf(request);
    const values: SettingsFormValues = {
      timezone: field(form, 'timezone').trim(),
      slot_interval_minutes: field(form, 'slot_interval_minutes').trim(),
      min_lead_minutes: field(form, 'min_lead_minutes').trim(),
      weekly: Object.fromEntries(WEEKDAYS.map((d) => [d, field(form, d).trim()])) as Record<Weekday, string>,
    };
    const problems: Record<string, string> = {};
    const settings: Partial<SiteSettings> = {};
    for (const key of ['timezone', 'slot_interval_minutes', 'min_lead_minutes'] as const) {
      try {
        Object.assign(settings, { [key]: parseSetting(key, values[key]) });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        problems[key] = error.message;
      }
    }
    const { weekly, problems: dayProblems } = parseWeeklyForm(values.weekly);
    Object.assign(problems, dayProblems);
    if (Object.keys(problems).length > 0) {
      const schedule = await readSiteSchedule(db);
      return sendPage(request, reply, {
        status: 422,
        title: 'Settings',
        active: '/admin/settings',
        body: settingsPage({ values, problems, timezones, exceptions: schedule.exceptions.length, csrf: request.adminSession!.csrfToken, saved: false }),
      });
    }
    await changeSettings(db, settings, async (trx) => {
      await writeSiteWeekly(trx, weekly);
    });
    return reply.redirect('/admin/settings?saved=1', 303);
  });

  // ---- Outbox ----------------------------------------------------------------------------
  app.get('/outbox', { schema: { ...hidden, querystring: OutboxQuery } }, async (request, reply) => {
    const status = request.query.status || undefined;
    const pageNumber = request.query.page ?? 1;
    const [rows, total, { timezone: zone }] = await Promise.all([
      listOutbox(db, { ...(status ? { status: status } : {}), limit: OUTBOX_PER_PAGE, offset: (pageNumber - 1) * OUTBOX_PER_PAGE }),
      countOutbox(db, status as OutboxStatus | undefined),
      request.site(),
    ]);
    return sendPage(request, reply, {
      title: 'Outbox',
      active: '/admin/outbox',
      body: outboxPage({ rows, status: status ?? '', page: pageNumber, total, totalPages: Math.ceil(total / OUTBOX_PER_PAGE), zone }),
    });
  });

  // ---- Webhooks --------------------------------------------------------------------------
  app.get('/webhooks', { schema: { ...hidden, querystring: Type.Object({ retried: Type.Optional(Id()) }) } }, async (request, reply) => {
    const [endpoints, { timezone: zone }] = await Promise.all([endpointsWithRecentDeliveries(db, 100, 10), request.site()]);
    const { retried } = request.query;
    return sendPage(request, reply, {
      title: 'Webhooks',
      active: '/admin/webhooks',
      body: webhooksPage({ endpoints, zone, csrf: request.adminSession!.csrfToken, message: retried === undefined ? undefined : `Delivery ${retried} is due again now.` }),
    });
  });

  app.post('/webhooks/:id/deliveries/:delivery_id/retry', { schema: { ...hidden, params: Type.Object({ id: Id(), delivery_id: Id() }) } }, async (request, reply) => {
    const delivery = await retryDelivery(db, request.params.id, request.params.delivery_id);
    return reply.redirect(`/admin/webhooks?retried=${delivery.id}`, 303);
  });
}

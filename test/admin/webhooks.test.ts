import { beforeAll, describe, expect, it } from 'vitest';
import { API } from '../bookings/setup.js';
import { DIALECTS, useTestApp } from '../helper.js';
import { csrfOf, form, FORM, signIn, type Signed, storeCheapAdminPassword } from './session.js';

describe.each(DIALECTS)('admin page: webhooks (%s)', (dialect) => {
  const t = useTestApp(dialect, { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  let s: Signed;
  beforeAll(async () => {
    await storeCheapAdminPassword(t.db);
    s = await signIn(t.app);
  });

  it('lists endpoints with their recent deliveries, and a retry sends one again', async () => {
    const key = await t.key();
    const created = await t.app.inject({ method: 'POST', url: `${API}/webhooks`, headers: { 'x-api-key': key }, payload: { url: 'http://127.0.0.1:9/hooks', description: 'CRM sync' } });
    const endpoint = created.json<{ data: { id: number; secret: string } }>().data;
    const tested = await t.app.inject({ method: 'POST', url: `${API}/webhooks/${endpoint.id}/test`, headers: { 'x-api-key': key } });
    const delivery = tested.json<{ data: { id: number } }>().data;
    // Nothing listens on port 9: the attempt fails and waits for its retry.
    await t.app.jobs.runOnce();

    const page = await t.app.inject({ method: 'GET', url: '/admin/webhooks', headers: { cookie: s.cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('http://127.0.0.1:9/hooks');
    expect(page.body).toContain('CRM sync');
    expect(page.body).toContain(`data-delivery-id="${delivery.id}"`);
    expect(page.body).toContain('webhook.test');
    expect(page.body).toMatch(/ECONNREFUSED/);
    expect(page.body).not.toContain(endpoint.secret);

    const before = await t.db.selectFrom('webhook_deliveries').select('next_attempt_at').where('id', '=', delivery.id).executeTakeFirstOrThrow();
    const retried = await t.app.inject({
      method: 'POST',
      url: `/admin/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`,
      headers: { ...FORM, cookie: s.cookie },
      payload: form({ _csrf: csrfOf(page.body) }),
    });
    expect(retried.statusCode).toBe(303);
    expect(retried.headers.location).toBe(`/admin/webhooks?retried=${delivery.id}`);
    const after = await t.db.selectFrom('webhook_deliveries').select(['status', 'next_attempt_at']).where('id', '=', delivery.id).executeTakeFirstOrThrow();
    expect(after.status).toBe('pending');
    expect(Date.parse(after.next_attempt_at)).toBeLessThan(Date.parse(before.next_attempt_at));

    // Without the form's token, nothing is retried.
    const forged = await t.app.inject({ method: 'POST', url: `/admin/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`, headers: { ...FORM, cookie: s.cookie }, payload: form({}) });
    expect(forged.statusCode).toBe(403);
  });
});

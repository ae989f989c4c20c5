import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { DIALECTS, buildTestApp, cli, createTestDatabase, type Json, type TestDatabase } from '../helper.js';
import { MAX_ADVANCE_DAYS } from '../../src/core/limits.js';

describe.each(DIALECTS)('npx booking (%s)', (dialect) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await database.drop();
  });

  it('migrate applies the migrations on a fresh database, then reports nothing to do', async () => {
    const first = await cli(database.url, ['migrate', '--json']);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).applied).toContain('0001_foundation');
    const second = await cli(database.url, ['migrate', '--json']);
    expect(JSON.parse(second.stdout)).toEqual({ applied: [] });
  });

  it('stops quietly when the reader of its output has gone (| head)', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/cli/booking-bin.ts', 'migrate'], {
      env: { ...process.env, DATABASE_URL: database.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Closed before the command writes: its write fails with EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'close')) as [number | null];
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('keys create --json prints exactly one JSON value with the key, which then works', async () => {
    const res = await cli(database.url, ['keys', 'create', '--name', 'demo', '--json']);
    expect(res.code).toBe(0);
    const created: Json = JSON.parse(res.stdout);
    expect(Object.keys(created).sort()).toEqual(['id', 'key', 'name', 'per_hour', 'per_minute', 'permissions', 'type']);
    expect(created).toMatchObject({ name: 'demo', type: 'test', permissions: ['*'], per_minute: 100, per_hour: 1000 });
    expect(created.key).toMatch(/^bk_test_/);

    const app = await buildTestApp(database.url);
    try {
      const ok = await app.inject({ url: '/booking-api/v1/status', headers: { 'x-api-key': created.key } });
      expect(ok.statusCode).toBe(200);
      const revoked = await cli(database.url, ['keys', 'revoke', String(created.id)]);
      expect(revoked.code).toBe(0);
      const refused = await app.inject({ url: '/booking-api/v1/status', headers: { 'x-api-key': created.key } });
      expect(refused.statusCode).toBe(401);
    } finally {
      await app.close();
    }
  });

  it('keys create takes type, permissions and limits, and refuses unknown permissions', async () => {
    const res = await cli(database.url, [
      'keys', 'create', '--name', 'live one', '--type', 'live', '--permissions', 'bookings:read,customers:read', '--per-minute', '7', '--json',
    ]);
    const created: Json = JSON.parse(res.stdout);
    expect(created).toMatchObject({ type: 'live', permissions: ['bookings:read', 'customers:read'], per_minute: 7, per_hour: 3600 });
    expect(created.key).toMatch(/^bk_live_/);

    const bad = await cli(database.url, ['keys', 'create', '--name', 'x', '--permissions', 'bookings:fly']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/bookings:fly/);
    expect(bad.stdout).toBe('');
    const noName = await cli(database.url, ['keys', 'create']);
    expect(noName.code).toBe(2);
  });

  it('keys list shows prefix and status, never the key or its hash', async () => {
    const created: Json = JSON.parse((await cli(database.url, ['keys', 'create', '--name', 'listed', '--json'])).stdout);
    await cli(database.url, ['keys', 'revoke', String(created.id)]);
    const res = await cli(database.url, ['keys', 'list', '--json']);
    const keys: Json[] = JSON.parse(res.stdout);
    const listed = keys.find((k) => k.id === created.id);
    expect(Object.keys(listed).sort()).toEqual(
      ['created_at', 'id', 'last_used_at', 'name', 'per_hour', 'per_minute', 'permissions', 'prefix', 'status', 'type'].sort(),
    );
    expect(listed).toMatchObject({ name: 'listed', status: 'inactive', prefix: created.key.slice(0, 12) });
    expect(res.stdout).not.toContain(created.key);
    expect(res.stdout).not.toMatch(/[0-9a-f]{64}/);
    const table = await cli(database.url, ['keys', 'list']);
    expect(table.stdout).toMatch(/listed .* inactive/);
  });

  it('shows control characters in tables escaped, so that stored text cannot drive the terminal', async () => {
    await cli(database.url, ['keys', 'create', '--name', 'Cut\u001b[2J\u0007me']);
    const table = await cli(database.url, ['keys', 'list']);
    expect(table.stdout).toContain('Cut\\u001b[2J\\u0007me');
    expect(table.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
  });

  it('keys revoke of an unknown id fails with a message', async () => {
    const res = await cli(database.url, ['keys', 'revoke', '99999']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/not found/);
  });

  it('settings get and set validate and persist', async () => {
    expect(JSON.parse((await cli(database.url, ['settings', 'get', '--json'])).stdout)).toEqual({
      timezone: 'UTC',
      slot_interval_minutes: 30,
      min_lead_minutes: 0,
      // A test app on this database lifted it (its default is 365: test/settings).
      max_advance_days: MAX_ADVANCE_DAYS,
      cancel_cutoff_minutes: 0,
      reschedule_cutoff_minutes: 0,
      currency: 'USD',
      reminder_offsets_minutes: [1440],
      staff_notifications: true,
    });
    expect((await cli(database.url, ['settings', 'set', 'reminder_offsets_minutes', '120,1440'])).stdout).toBe('reminder_offsets_minutes = 1440,120\n');
    expect((await cli(database.url, ['settings', 'set', 'reminder_offsets_minutes', ''])).stdout).toBe('reminder_offsets_minutes = \n');
    expect((await cli(database.url, ['settings', 'set', 'reminder_offsets_minutes', '0'])).code).toBe(1);
    expect((await cli(database.url, ['settings', 'set', 'staff_notifications', 'maybe'])).code).toBe(1);
    expect((await cli(database.url, ['settings', 'set', 'staff_notifications', 'false'])).stdout).toBe('staff_notifications = false\n');
    expect((await cli(database.url, ['settings', 'set', 'timezone', 'Europe/Berlin'])).code).toBe(0);
    expect((await cli(database.url, ['settings', 'set', 'currency', 'chf'])).stdout).toBe('currency = CHF\n');
    expect((await cli(database.url, ['settings', 'set', 'currency', 'XYZW'])).code).toBe(1);
    expect((await cli(database.url, ['settings', 'get', 'timezone'])).stdout).toBe('Europe/Berlin\n');
    const badZone = await cli(database.url, ['settings', 'set', 'timezone', 'Mars/Olympus']);
    expect(badZone.code).toBe(1);
    expect(badZone.stderr).toMatch(/Mars\/Olympus/);
    expect((await cli(database.url, ['settings', 'set', 'slot_interval_minutes', '0'])).code).toBe(1);
    expect((await cli(database.url, ['settings', 'set', 'min_lead_minutes', '120'])).code).toBe(0);
    expect((await cli(database.url, ['settings', 'set', 'cancel_cutoff_minutes', '1440'])).stdout).toBe('cancel_cutoff_minutes = 1440\n');
    expect((await cli(database.url, ['settings', 'get', 'cancel_cutoff_minutes'])).stdout).toBe('1440\n');
    expect((await cli(database.url, ['settings', 'set', 'reschedule_cutoff_minutes', '525601'])).code).toBe(1);
    expect((await cli(database.url, ['settings', 'set', 'max_advance_days', '0'])).code).toBe(1);
    expect((await cli(database.url, ['settings', 'set', 'colour', 'blue'])).code).toBe(2);
  });

  it('audit --json lists the newest requests first, filtered by key', async () => {
    const created: Json = JSON.parse((await cli(database.url, ['keys', 'create', '--name', 'audited', '--json'])).stdout);
    const app = await buildTestApp(database.url);
    try {
      await app.inject({ url: '/booking-api/v1/status?secret=1', headers: { 'x-api-key': created.key } });
      await app.inject({ url: '/booking-api/v1/nothing-here', headers: { 'x-api-key': created.key } });
      await app.inject({ url: '/booking-api/v1/status', headers: { 'x-api-key': 'bk_test_wrongwrongwrongwrongwrongwrong' } });
    } finally {
      await app.close();
    }
    const res = await cli(database.url, ['audit', '--key', String(created.id), '--json']);
    expect(res.code).toBe(0);
    const entries: Json[] = JSON.parse(res.stdout);
    expect(entries).toHaveLength(1);
    expect(Object.keys(entries[0]).sort()).toEqual(['at', 'duration_ms', 'id', 'ip', 'key_id', 'method', 'path', 'status'].sort());
    // The path is kept without its query (which may hold anything); the unknown parameter made it a 400.
    expect(entries[0]).toMatchObject({ key_id: created.id, method: 'GET', path: '/booking-api/v1/status', status: 400 });

    const all: Json[] = JSON.parse((await cli(database.url, ['audit', '--limit', '1', '--json'])).stdout);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ key_id: null, status: 401 });
  });

  it('stops with one line naming a bad variable', async () => {
    let stderr = '';
    const code = await runCli(
      ['migrate'],
      { stdout: { write: () => true }, stderr: { write: (s: string) => (stderr += s) }, stdin: (async function* () {})() },
      { DATABASE_URL: database.url, SITE_TIMEZONE: 'Nowhere/Land' },
    );
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/SITE_TIMEZONE/);
  });
});

describe('npx booking with a SQLite file it cannot open', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-cli-'));
    fs.writeFileSync(path.join(dir, 'a-file'), '');
    fs.writeFileSync(path.join(dir, 'text.db'), 'not a database, but long enough to be read as one that is damaged\n'.repeat(100));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['a folder where the file should be', () => dir],
    ['a path through a file', () => path.join(dir, 'a-file', 'x.db')],
    ['a file that is not a database', () => path.join(dir, 'text.db')],
  ])('stops with one line, no stack trace: %s', async (_case, file) => {
    const { code, stdout, stderr } = await cli(`sqlite:${file()}`, ['keys', 'list']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^error: cannot open the database named by DATABASE_URL \(.+\)\n$/);
  });

  it.runIf(process.platform === 'linux')('closes the file it could not use, so a process that goes on keeps no handle of it', async () => {
    const file = path.join(dir, 'text.db');
    const handlesOfFile = () => fs.readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`) === file;
      } catch {
        return false;
      }
    }).length;
    for (let run = 0; run < 3; run++) expect((await cli(`sqlite:${file}`, ['keys', 'list'])).code).toBe(1);
    expect(handlesOfFile()).toBe(0);
  });
});

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helper.js';

function startServer(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { ...process.env, LOG_LEVEL: 'info', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return { child, output: () => ({ stdout, stderr }) };
}

describe('the server process', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
  });
  afterAll(async () => {
    await database.drop();
  });

  it('listens on a free port, answers, and shuts down cleanly on SIGTERM', async () => {
    const server = startServer({ DATABASE_URL: database.url });
    const url = await new Promise<string>((resolve, reject) => {
      server.child.stdout.on('data', () => {
        const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output().stdout);
        if (match?.[1]) resolve(match[1]);
      });
      server.child.on('exit', () => reject(new Error(`exited early: ${server.output().stderr}`)));
    });
    const res = await fetch(`${url}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    // A manage-booking link's key and an API key never reach the log.
    expect((await fetch(`${url}/manage-booking/NOSUCHCODE?role=agent&key=SecretLinkKey42`)).status).toBe(404);
    // Spelled as the query parser decodes it, or not decodable at all: masked all the same.
    expect((await fetch(`${url}/manage-booking/NOSUCHCODE?role=agent&k%65y=SecretEncoded42`)).status).toBe(404);
    expect((await fetch(`${url}/manage-booking/NOSUCHCODE?%6Bey=SecretEncoded43&role=agent`)).status).toBe(404);
    expect((await fetch(`${url}/manage-booking/NOSUCHCODE?role=agent&k%zzy=SecretUndecodable44`)).status).toBeLessThan(500);
    // Nor a calendar feed's token, which its path carries.
    expect((await fetch(`${url}/calendar-feeds/SecretFeedToken42.ics`)).status).toBe(404);
    // The last request: once its line is in the log, so are the others'.
    expect((await fetch(`${url}/booking-api/v1/status`, { headers: { 'x-api-key': 'bk_test_SecretApiKey42' } })).status).toBe(401);
    await new Promise<void>((resolve) => {
      const check = () => (server.output().stdout.includes('/booking-api/v1/status') ? resolve() : setTimeout(check, 20));
      check();
    });
    expect(server.output().stdout).toContain('/manage-booking/NOSUCHCODE?role=agent&key=[redacted]');
    expect(server.output().stdout).toContain('/manage-booking/NOSUCHCODE?role=agent&k%65y=[redacted]');
    expect(server.output().stdout).toContain('/manage-booking/NOSUCHCODE?%6Bey=[redacted]&role=agent');
    expect(server.output().stdout).toContain('/calendar-feeds/[redacted]');
    expect(server.output().stdout).not.toContain('Secret');
    server.child.kill('SIGTERM');
    const [code] = (await once(server.child, 'exit')) as [number];
    expect(code).toBe(0);
  });

  it('refuses to start on a bad variable, with one line naming it', async () => {
    const server = startServer({ DATABASE_URL: database.url, PORT: 'eighty' });
    const [code] = (await once(server.child, 'exit')) as [number];
    expect(code).toBe(1);
    const { stderr, stdout } = server.output();
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toEqual([expect.stringMatching(/^configuration error: PORT: /)]);
  });

  it('says in one line when the database cannot be reached at start', async () => {
    const server = startServer({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    const [code] = (await once(server.child, 'exit')) as [number];
    expect(code).toBe(1);
    expect(server.output().stderr.trim().split('\n')).toEqual([expect.stringMatching(/^cannot start: the database named by DATABASE_URL cannot be reached/)]);
  });

  it('says in one line, naming HOST and PORT, when their address cannot be listened on', async () => {
    const server = startServer({ DATABASE_URL: database.url, HOST: '999.1.1.1' });
    const [code] = (await once(server.child, 'exit')) as [number];
    expect(code).toBe(1);
    expect(server.output().stderr.trim().split('\n')).toEqual([expect.stringMatching(/^cannot start: cannot listen on HOST=999\.1\.1\.1 PORT=0 \(/)]);
  });
});

/**
 * Writes the OpenAPI document the service serves, built from the route schemas with a throwaway
 * SQLite database. Run: npx tsx scripts/openapi.ts [out.json] (stdout without a path).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-'));
try {
  const config = loadConfig({ ...process.env, DATABASE_URL: `sqlite:${path.join(dir, 'doc.db')}`, LOG_LEVEL: 'silent', REDIS_URL: undefined });
  const app = await buildApp(config, { logger: false, mailPollMs: false });
  await app.ready();
  const text = `${JSON.stringify(app.swagger(), null, 2)}\n`;
  await app.close();
  const out = process.argv[2];
  if (out === undefined) process.stdout.write(text);
  else {
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, text);
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

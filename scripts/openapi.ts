/**
 * Writes the OpenAPI document the service serves, built from the route schemas with a throwaway
 * SQLite database. Run: npx tsx scripts/openapi.ts [out.json] (stdout without a path).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

/** The document of an app built on a throwaway SQLite database (the document depends on no data); PUBLIC_URL from `env`. */
export async function openApiDocument(env: NodeJS.ProcessEnv = {}): Promise<unknown> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-'));
  try {
    const config = loadConfig({ ...env, DATABASE_URL: `sqlite:${path.join(dir, 'doc.db')}`, LOG_LEVEL: 'silent', REDIS_URL: undefined });
    const app = await buildApp(config, { logger: false, jobPollMs: false });
    try {
      await app.ready();
      return app.swagger();
    } finally {
      await app.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const text = `${JSON.stringify(await openApiDocument(process.env), null, 2)}\n`;
  const out = process.argv[2];
  if (out === undefined) process.stdout.write(text);
  else {
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, text);
  }
}

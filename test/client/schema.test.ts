import fs from 'node:fs';
import { expect, it } from 'vitest';
import { CLIENT_SCHEMA, clientSchema } from '../../scripts/client-generate.js';
import { openApiDocument } from '../../scripts/openapi.js';

it('the committed client types are those of the current OpenAPI document (else: npm run client:generate)', async () => {
  expect(fs.readFileSync(CLIENT_SCHEMA, 'utf8')).toBe(await clientSchema(await openApiDocument()));
});

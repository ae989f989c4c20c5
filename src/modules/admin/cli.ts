import { defineCommand } from '../../cli/command.js';
import { setAdminPassword } from './password.js';

async function readAll(stdin: AsyncIterable<Buffer | string>): Promise<string> {
  let text = '';
  for await (const chunk of stdin) text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
  return text;
}

export const adminPasswordSet = defineCommand({
  summary: 'Set the /admin password, read from stdin (at least 8 characters); every admin session is signed out.',
  options: {},
  async run({ db, io }) {
    // One trailing line break is the end of input (echo, a terminal), not part of the password.
    const password = (await readAll(io.stdin)).replace(/\r?\n$/, '');
    await setAdminPassword(db, password);
    io.stdout.write('Admin password set; every admin session was signed out.\n');
  },
});

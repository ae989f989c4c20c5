import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';

// Help and usage mistakes are answered before the database is opened: this URL names a folder,
// which any command that got as far as opening it would fail on (exit 1).
const UNOPENABLE = `sqlite:${os.tmpdir()}`;

async function booking(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    argv,
    { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) }, stdin: (async function* () {})() },
    { DATABASE_URL: UNOPENABLE },
  );
  return { code, stdout, stderr };
}

const COMMANDS = ['migrate', 'keys create', 'keys list', 'keys revoke', 'settings get', 'settings set', 'seed', 'audit', 'admin-password set', 'outbox list'];

describe('npx booking help', () => {
  it('lists every command with its usage on stdout for --help, -h and help', async () => {
    for (const flag of ['--help', '-h', 'help']) {
      const res = await booking(flag);
      expect(res, flag).toMatchObject({ code: 0, stderr: '' });
      for (const name of COMMANDS) expect(res.stdout, `${flag}: ${name}`).toContain(`  booking ${name}`);
      expect(res.stdout).toContain('booking keys create --name NAME [--type test|live]');
    }
  });

  it.each(COMMANDS)('%s --help shows its usage and a described line for each argument and option', async (name) => {
    const res = await booking(...name.split(' '), '--help');
    expect(res).toMatchObject({ code: 0, stderr: '' });
    const [usage = ''] = res.stdout.split('\n');
    expect(usage.startsWith(`usage: booking ${name}`)).toBe(true);
    const words = usage.slice(`usage: booking ${name}`.length).trim().split(' ').filter(Boolean);
    const firstOption = words.findIndex((word) => word.replace('[', '').startsWith('--'));
    const argumentNames = words.slice(0, firstOption < 0 ? words.length : firstOption).map((word) => word.replace(/[[\]]/g, ''));
    const optionNames = usage.match(/--[\w-]+/g) ?? [];
    for (const item of [...argumentNames, ...optionNames]) {
      expect(res.stdout, item).toMatch(new RegExp(`^  ${item}( \\S+)? {2,}\\S.{8,}$`, 'm'));
    }
    expect(res.stdout).toMatch(/^ {2}-h, --help {2,}show this help$/m);
    expect(await booking('help', ...name.split(' '))).toEqual(res);
  });

  it('lists a group\'s subcommands for GROUP --help', async () => {
    const res = await booking('keys', '--help');
    expect(res).toMatchObject({ code: 0, stderr: '' });
    expect(res.stdout).toMatch(/^usage: booking keys SUBCOMMAND/);
    for (const name of ['keys create', 'keys list', 'keys revoke']) expect(res.stdout).toContain(`  booking ${name}`);
    expect(res.stdout).not.toContain('booking settings');
  });
});

describe('npx booking, not understood (exit 2, nothing opened)', () => {
  it('names an unknown command and lists the commands', async () => {
    const res = await booking('foo', 'bar');
    expect(res).toMatchObject({ code: 2, stdout: '' });
    expect(res.stderr).toMatch(/^unknown command: foo\n/);
    expect(res.stderr).toContain('  booking keys create');
    expect((await booking('kyes', 'list')).stderr).toMatch(/^unknown command: kyes; did you mean keys\?\n/);
  });

  it('names an unknown or missing subcommand and lists the group', async () => {
    const unknown = await booking('keys', 'frob');
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toMatch(/^unknown command: keys frob\n/);
    expect(unknown.stderr).toContain('  booking keys revoke');
    const missing = await booking('keys');
    expect(missing).toMatchObject({ code: 2, stdout: '' });
    expect(missing.stderr).toMatch(/^missing subcommand: keys\n/);
  });

  it.each([
    ['keys list', ['--jsn'], 'unknown option: --jsn; did you mean --json?'],
    ['audit', ['-x'], 'unknown option: -x'],
    ['keys create', ['--name'], "Option '--name <value>' argument missing"],
    ['keys create', ['--type', 'live'], '--name is required'],
    ['seed', [], '--demo is required'],
    ['settings set', ['timezone'], 'VALUE is required'],
    ['keys revoke', ['1', '2'], 'too many arguments: give ID'],
    ['migrate', ['--json=yes'], "Option '--json' does not take an argument"],
  ])('%s %j: says what is wrong, with the usage line', async (name, args, message) => {
    const res = await booking(...name.split(' '), ...args);
    expect(res).toMatchObject({ code: 2, stdout: '' });
    const usage = (await booking(...name.split(' '), '--help')).stdout.split('\n')[0];
    expect(res.stderr).toBe(`error: ${message}\n${usage}\nRun 'booking ${name} --help' for its options.\n`);
  });

  it('does not repeat a word given where none belongs (a password typed as an argument)', async () => {
    const res = await booking('admin-password', 'set', 'hunter2hunter2');
    expect(res).toMatchObject({ code: 2, stdout: '' });
    expect(res.stderr).toMatch(/^error: this command takes no arguments\n/);
    expect(res.stderr).not.toContain('hunter2');
  });
});

import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../../bench/processes.js';

const run = promisify(execFile);
const BIN = '/usr/lib/postgresql/15/bin';
const DATABASE = 'booking';
/** pg_ctl waits up to 60 s itself; a command still running past this is stuck, and the run fails. */
const COMMAND_LIMIT_MS = 90_000;

/**
 * A PostgreSQL cluster of its own in a temporary folder, on a free port, with trust auth: the
 * machine's cluster is never touched. PostgreSQL refuses to run as root, so under root every
 * command runs as the `postgres` user (runuser), which then owns the folder.
 */
export class PostgresCluster {
  readonly dataDir: string;
  readonly url: string;
  private readonly asUser: string[];

  private constructor(
    private readonly dir: string,
    readonly port: number,
  ) {
    this.dataDir = path.join(dir, 'data');
    this.url = `postgres://postgres@127.0.0.1:${port}/${DATABASE}`;
    this.asUser = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
  }

  static async create(dir: string): Promise<PostgresCluster> {
    const cluster = new PostgresCluster(dir, await freePort());
    if (cluster.asUser.length > 0) {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
      fs.chownSync(dir, uid, gid);
    }
    await cluster.command('initdb', ['-D', cluster.dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
    await cluster.start();
    const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${cluster.port}/postgres` });
    await admin.connect();
    await admin.query(`create database ${DATABASE}`);
    await admin.end();
    return cluster;
  }

  start(): Promise<void> {
    return this.command('pg_ctl', [...this.serverOptions(), '-w', 'start']);
  }

  stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    return this.command('pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', 'stop']);
  }

  restart(): Promise<void> {
    return this.command('pg_ctl', [...this.serverOptions(), '-m', 'fast', '-w', 'restart']);
  }

  /** With the log file named: without it the server would write into pg_ctl's output, which then never closes. */
  private serverOptions(): string[] {
    const options = `-p ${this.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${this.dir} -c max_connections=200`;
    return ['-D', this.dataDir, '-l', path.join(this.dir, 'postgres.log'), '-o', options];
  }

  /** The postmaster and every process it forked (backends, checkpointer, WAL writer, …). */
  processIds(): number[] {
    const postmaster = Number(fs.readFileSync(path.join(this.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = execFileSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
    return [postmaster, ...children];
  }

  /** Every process stopped where it stands, as a network black hole or a stuck disk looks to a client. */
  freeze(): number[] {
    const pids = this.processIds();
    for (const pid of pids) process.kill(pid, 'SIGSTOP');
    return pids;
  }

  thaw(pids: number[]): void {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // A process that is gone needs no waking.
      }
    }
  }

  /** Best effort at the end of a run, whatever state the cluster was left in (frozen, stopped). */
  async remove(): Promise<void> {
    try {
      this.thaw(this.processIds());
    } catch {
      // No postmaster.pid: the cluster is not running.
    }
    await this.stop('immediate').catch(() => {});
  }

  private async command(name: string, args: string[]): Promise<void> {
    const [file, ...rest] = [...this.asUser, path.join(BIN, name), ...args];
    await run(file!, rest, { cwd: this.dir, timeout: COMMAND_LIMIT_MS });
  }
}

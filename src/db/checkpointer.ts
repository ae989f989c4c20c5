import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the worker moves the write-ahead log into the database file. */
const CHECKPOINT_EVERY_MS = 200;

// Plain JavaScript, run by the worker: a better-sqlite3 handle cannot cross threads, so it opens
// a connection of its own. PASSIVE never waits for (nor blocks) readers or writers; a turn that
// fails (the file locked or gone) leaves the work to the next one or to the backstop.
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const database = new Database(workerData.file, { fileMustExist: true });
setInterval(() => {
  try {
    database.pragma('wal_checkpoint(PASSIVE)');
  } catch {}
}, workerData.everyMs);
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

/**
 * Checkpoints a SQLite database in WAL mode from a worker thread. SQLite otherwise checkpoints
 * inside the COMMIT that crosses its threshold, copying pages and fsyncing the file on the
 * event loop: under a stream of booking writes every request waits behind that. The connection
 * that writes keeps a high threshold of its own as a backstop should the worker stop.
 */
export function startCheckpointer(file: string): Checkpointer {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), file, everyMs: CHECKPOINT_EVERY_MS },
  });
  // Nothing the process waits for: it exits without stopping the worker, and a worker that dies
  // leaves checkpoints to the backstop.
  worker.unref();
  worker.on('error', () => {});
  return {
    stop: async () => {
      await worker.terminate();
    },
  };
}

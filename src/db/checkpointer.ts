import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { SqliteStorage } from './sqlite-storage.js';

/** How often the worker moves the write-ahead log into the database file. */
const CHECKPOINT_EVERY_MS = 200;

// Plain JavaScript, run by the worker: a better-sqlite3 handle cannot cross threads, so it opens
// a connection of its own. PASSIVE never waits for (nor blocks) readers or writers; a turn that
// fails (the file locked or gone, the disk full) leaves the work to the next one or to the
// backstop. The worker tells the first failure of a run of them and the success that ends it,
// not every turn: five a second would flood the log.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const database = new Database(workerData.file, { fileMustExist: true });
let failing = false;
setInterval(() => {
  try {
    database.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    if (!failing) parentPort.postMessage({ failed: { code: error.code, message: error.message } });
    failing = true;
    return;
  }
  if (failing) parentPort.postMessage({ recovered: true });
  failing = false;
}, workerData.everyMs);
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

type WorkerReport = { failed: { code?: string; message: string } } | { recovered: true };

/**
 * Checkpoints a SQLite database in WAL mode from a worker thread. SQLite otherwise checkpoints
 * inside the COMMIT that crosses its threshold, copying pages and fsyncing the file on the
 * event loop: under a stream of booking writes every request waits behind that. The connection
 * that writes keeps a high threshold of its own as a backstop should the worker stop.
 * Failures go to the storage's log, once a run.
 */
export function startCheckpointer(file: string, storage: SqliteStorage): Checkpointer {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), file, everyMs: CHECKPOINT_EVERY_MS },
  });
  // Nothing the process waits for: it exits without stopping the worker, and a worker that dies
  // leaves checkpoints to the backstop.
  worker.unref();
  worker.on('message', (report: WorkerReport) => {
    if ('failed' in report) storage.checkpointFailed(report.failed);
    else storage.checkpointSucceeded();
  });
  worker.on('error', (error) => storage.checkpointFailed(error));
  return {
    stop: async () => {
      await worker.terminate();
    },
  };
}

import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { isDatabaseUnavailable } from './db/database.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await buildApp(config);

  let closing = false;
  const shutdown = (signal: string): void => {
    if (closing) return;
    closing = true;
    const { shutdownGraceMs } = config.server;
    const started = performance.now();
    app.log.info({ signal, shutdownGraceMs }, 'shutting down');
    // Requests in flight finish (slow clients are cut, registerGracefulClose); a stuck one does
    // not hold the process hostage.
    setTimeout(() => {
      app.log.error({ shutdownGraceMs }, `forced exit: requests in flight or the closing of the database outlasted the ${shutdownGraceMs} ms grace period`);
      process.exit(1);
    }, shutdownGraceMs).unref();
    app.close().then(
      () => {
        app.log.info({ ms: Math.round(performance.now() - started), shutdownGraceMs }, 'shut down within the grace period');
        process.exit(0);
      },
      (error: unknown) => {
        app.log.error({ err: error }, 'error while shutting down');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    const reason = error instanceof Error ? error.message : String(error);
    throw new ListenError(`cannot listen on HOST=${config.host} PORT=${config.port} (${reason})`);
  }
}

/** The address of HOST and PORT cannot be listened on: unknown host, port taken or not allowed. */
class ListenError extends Error {}

main().catch((error: unknown) => {
  // Start-up failures are one line: the variable at fault, or what could not be reached.
  const reason = error instanceof Error ? error.message : String(error);
  const message =
    error instanceof ConfigError
      ? `configuration error: ${error.message}`
      : error instanceof ListenError
        ? `cannot start: ${error.message}`
        : isDatabaseUnavailable(error)
        ? `cannot start: the database named by DATABASE_URL cannot be reached (${reason})`
        : `cannot start: ${reason}`;
  process.stderr.write(`${message}\n`);
  process.exit(1);
});

import Fastify from 'fastify';

/** The yardstick: the cheapest Fastify route on this machine, a small JSON answer. */
const app = Fastify({ logger: false });
app.get('/', async () => ({ status: 'success', data: { hello: 'world' } }));
app.get('/healthz', async () => ({ status: 'ok' }));
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));

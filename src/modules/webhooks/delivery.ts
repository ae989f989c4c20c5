import http from 'node:http';
import https from 'node:https';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { Webhook } from 'standardwebhooks';
import type { Db } from '../../db/database.js';
import { findEvent, presentEvent } from '../events/index.js';
import { errorText, scheduledBackoff, type JobOutcome, type JobQueue } from '../jobs/index.js';
import * as repository from './repository.js';
import type { WebhookSecrets } from './secrets.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * The waits after each failed attempt: roughly exponential, as Standard Webhooks suggests, adding
 * up to about three days (72.6 hours) before a delivery is given up; each wait less up to a tenth
 * at random, so the deliveries of one outage do not all come back at once.
 */
export const RETRY_SCHEDULE_MS: readonly number[] = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR, 14 * HOUR, 14 * HOUR, 17 * HOUR];
export const RETRY_JITTER = 0.1;
/** An endpoint whose every delivery has failed for this long is disabled. */
export const DISABLE_AFTER_MS = 3 * 24 * HOUR;
const ANSWER_LIMIT = 1024;
const DEFAULT_TIMEOUT_MS = 10 * SECOND;
// Small, so that a crashed instance's claim lapses soon (2 × 10 × 10 s); all ten are sent at once.
const BATCH_SIZE = 10;

export interface DeliveryOptions {
  db: Db;
  secrets: WebhookSecrets;
  allowPrivateNetworks: boolean;
  /** How long an endpoint has to answer 2xx (default 10 s; tests shorten it). */
  timeoutMs?: number;
  random?: () => number;
}

interface Answer {
  statusCode: number;
  body: string;
}

export interface WebhookQueue extends JobQueue<repository.DeliveryRow> {
  close(): void;
}

/** The first KiB of the answer, as text; the rest is not read. */
function post(url: URL, body: string, headers: Record<string, string>, agent: http.Agent, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? https.request : http.request;
    const request = send(url, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) }, signal: AbortSignal.timeout(timeoutMs) }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => resolve({ statusCode: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8').slice(0, ANSWER_LIMIT) });
      response.on('data', (chunk: Buffer) => {
        if (size < ANSWER_LIMIT) chunks.push(chunk);
        size += chunk.length;
        if (size >= ANSWER_LIMIT) {
          response.destroy();
          done();
        }
      });
      response.on('end', done);
      response.on('error', reject);
    });
    request.on('error', (error) => reject(error.name === 'AbortError' || error.name === 'TimeoutError' ? new Error(`no answer within ${timeoutMs} ms`) : error));
    request.end(body);
  });
}

/**
 * Webhook deliveries as a queue of the job runner. Each attempt is signed as Standard Webhooks
 * says (webhook-id, webhook-timestamp, webhook-signature with a `v1,` signature per valid secret),
 * POSTed through an agent that refuses to connect to a non-public address (request-filtering-agent,
 * checked on the address actually connected to), and recorded. A 2xx within the timeout succeeds.
 */
export function webhookQueue(options: DeliveryOptions): WebhookQueue {
  const { db, secrets } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const filter = { allowPrivateIPAddress: options.allowPrivateNetworks, keepAlive: true };
  const agents = { http: new RequestFilteringHttpAgent(filter), https: new RequestFilteringHttpsAgent(filter) };

  /** The bytes sent: an event as the feed shows it, the same on every attempt as events never change. */
  async function bodyOf(delivery: repository.DeliveryRow): Promise<string | undefined> {
    if (delivery.payload !== null) return delivery.payload;
    const event = delivery.event_id === null ? undefined : await findEvent(db, delivery.event_id);
    return event && JSON.stringify(presentEvent(event));
  }

  async function perform(delivery: repository.DeliveryRow, now: Date): Promise<JobOutcome> {
    const endpoint = await repository.findEndpoint(db, delivery.endpoint_id);
    if (!endpoint || endpoint.status !== 'enabled') return { status: 'failed', error: 'the endpoint is disabled' };

    const body = await bodyOf(delivery);
    if (body === undefined) return { status: 'failed', error: 'the event is gone' };
    const id = delivery.event_id === null ? `msg_${delivery.id}` : `evt_${delivery.event_id}`;
    const signatures = secrets.signingSecrets(endpoint, now).map((secret) => new Webhook(secret).sign(id, now, body));
    const url = new URL(endpoint.url);
    const started = performance.now();
    let answer: Answer | undefined;
    let error: string | null = null;
    try {
      answer = await post(url, body, {
        'content-type': 'application/json',
        'user-agent': 'booking-service-webhooks/1',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signatures.join(' '),
      }, url.protocol === 'https:' ? agents.https : agents.http, timeoutMs);
      if (answer.statusCode < 200 || answer.statusCode > 299) error = `answered ${answer.statusCode}`;
    } catch (caught) {
      error = errorText(caught);
    }
    await repository.insertAttempt(db, {
      delivery_id: delivery.id,
      attempted_at: now.toISOString(),
      status_code: answer?.statusCode ?? null,
      duration_ms: Math.round(performance.now() - started),
      response_body: answer?.body ?? null,
      error,
    });
    const extra = { last_status_code: answer?.statusCode ?? null };
    if (error === null) {
      if (endpoint.failing_since !== null) await repository.updateEndpoint(db, endpoint.id, { failing_since: null });
      return { status: 'succeeded', extra: { ...extra, delivered_at: now.toISOString() } };
    }
    const failingSince = endpoint.failing_since ?? now.toISOString();
    if (now.getTime() - Date.parse(failingSince) >= DISABLE_AFTER_MS) {
      await repository.updateEndpoint(db, endpoint.id, {
        status: 'disabled',
        disabled_reason: `every delivery failed for three days, since ${failingSince}`,
        updated_at: now.toISOString(),
      });
      return { status: 'failed', error, extra };
    }
    if (endpoint.failing_since === null) await repository.updateEndpoint(db, endpoint.id, { failing_since: failingSince });
    return { retry: true, error, extra };
  }

  return {
    name: 'webhooks',
    table: 'webhook_deliveries',
    batchSize: BATCH_SIZE,
    concurrency: BATCH_SIZE,
    // A whole batch of the slowest endpoints, twice over: a crashed instance's rows are taken over after this.
    claimMs: 2 * BATCH_SIZE * timeoutMs,
    backoff: scheduledBackoff(RETRY_SCHEDULE_MS, { jitter: RETRY_JITTER, random: options.random }),
    failedStatus: 'failed',
    perform,
    close: () => {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

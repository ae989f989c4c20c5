import { AppError } from '../../core/errors.js';
import type { StoredReplyFilter } from '../../http/idempotency.js';

/** Stands for a token left out of a stored reply: JSON text holds no raw control character. */
const LEFT_OUT = '\u0001';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Idempotency replies stored without calendar feed tokens. Only a token's hash is kept, so a
 * replay cannot show the URL again: it answers as for a response that was lost, and the caller
 * revokes that feed and makes another. Only a `url` member of a reply is matched (a quote in
 * text a client sent is escaped in JSON), so nothing a client wrote is taken for a feed's URL.
 */
export function storedReplyFeedUrls(publicUrl: string): StoredReplyFilter {
  const url = new RegExp(`("url":"${escapeRegExp(publicUrl)}/calendar-feeds/)[A-Za-z0-9_-]+(\\.ics")`, 'g');
  return {
    store: async (body) => body.replace(url, `$1${LEFT_OUT}$2`),
    replay: async (body) => {
      if (body.includes(`/calendar-feeds/${LEFT_OUT}.ics`)) {
        throw new AppError('idempotency_response_lost', 'The calendar feed was made, but its URL is shown only once: delete that feed and make another');
      }
      return body;
    },
  };
}

import { queryInteger } from './query.js';

/** `?after=<position>&limit=<n>` of the log-reading endpoints: positions are whole numbers, limit 1 to 1000 (default 100). */
export const positionPageQuery = {
  after: queryInteger(0, 999_999_999_999_999).default(0).describe('Only what comes after this position (default 0: from the start).'),
  limit: queryInteger(1, 1000).default(100).describe('At most this many (default 100).'),
};

import type { operations } from '../client/api-types.js';

/** An endpoint as GET webhook-endpoints/ lists it: its settings and where its deliveries stand. */
export type Endpoint = operations['listWebhookEndpoints']['responses'][200]['content']['application/json'][number];

const cell = (content: string, className = '') => Object.assign(document.createElement('td'), { textContent: content, className });

/** The state an operator reads first: enabled, or why and since when it is disabled. */
function status(endpoint: Endpoint): string {
  if (endpoint.status === 'enabled') return 'enabled';
  const since = endpoint.disabled_at ? ` since ${new Date(endpoint.disabled_at).toLocaleString()}` : '';
  return `disabled (${endpoint.disabled_reason ?? 'operator'})${since}`;
}

/** The latest failed attempt: when, what the receiver answered (or why none came), for which event type. */
function lastFailure(endpoint: Endpoint): string {
  const failure = endpoint.delivery.last_failure;
  if (!failure) return '—';
  const answer = failure.status_code === null ? (failure.error ?? 'no answer') : `HTTP ${failure.status_code}${failure.error ? `: ${failure.error}` : ''}`;
  return `${new Date(failure.attempted_at).toLocaleString()}, ${failure.event_type}: ${answer}`;
}

/** The webhooks panel's rows: each endpoint's URL, status, lag (events), what waits for a retry and its last failure. */
export function showWebhooks(body: HTMLTableSectionElement, endpoints: readonly Endpoint[]): void {
  if (endpoints.length === 0) {
    const row = document.createElement('tr');
    row.append(Object.assign(cell('No webhook endpoints.', 'muted'), { colSpan: 5 }));
    body.replaceChildren(row);
    return;
  }
  body.replaceChildren(
    ...endpoints.map((endpoint) => {
      const row = document.createElement('tr');
      row.dataset['endpoint'] = endpoint.id;
      if (endpoint.status === 'disabled') row.classList.add('disabled');
      row.append(
        cell(endpoint.url),
        cell(status(endpoint)),
        cell(endpoint.delivery.position === null ? '—' : String(endpoint.delivery.lag_events), 'n'),
        cell(String(endpoint.delivery.waiting), 'n'),
        cell(lastFailure(endpoint)),
      );
      return row;
    }),
  );
}

import { sourceEventTypes, toExternalEvent, type RoutedEvent } from '../../src/external-events/catalogue.js';
import { openLedger, type LedgerLocation } from '../../src/ledger.js';
import { expect } from 'vitest';
import { SUPPLIER } from './ledger.js';
import { TEST_NATS_URL } from './nats.js';
import { checkedFetch } from './openapi-check.js';
import type { Received, WebhookReceiver } from './webhook-receiver.js';

/** What the relay tests check deliveries against: the log, read as an operator would, and the order rule. */

/** A service's settings for the relay tests: both relays on, quick retries and leases, loopback receivers admitted. */
export const relayTestEnv = (stream: string, subjectPrefix: string): Record<string, string> => ({
  LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  LEDGER_WEBHOOK_RETRY_SCHEDULE: '0,50,100,200',
  LEDGER_RELAY_LEASE_MS: '1000',
  LEDGER_NATS_URL: TEST_NATS_URL,
  LEDGER_NATS_STREAM: stream,
  LEDGER_NATS_SUBJECT_PREFIX: subjectPrefix,
});

/** The supplier's webhook endpoint to `receiver`, created over the API; the receiver verifies with its secret. */
export async function addEndpoint(base: string, token: string, receiver: WebhookReceiver): Promise<void> {
  const created = await checkedFetch(`${base}/v1/data-import/webhook-endpoints/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Token ${token}` },
    body: JSON.stringify({ import_supplier_code: SUPPLIER, url: receiver.url }),
  });
  expect(created.status).toBe(201);
  receiver.secrets([((await created.json()) as { secret: string }).secret]);
}

/** The supplier's catalogue events after `after`, in log order, read from the database as an operator would. */
export async function supplierCatalogue(location: LedgerLocation, after: number): Promise<RoutedEvent[]> {
  const ledger = await openLedger(location);
  try {
    const out: RoutedEvent[] = [];
    for await (const batch of await ledger.log.open({ after, types: sourceEventTypes })) {
      for (const stored of batch) {
        const routed = toExternalEvent(stored);
        if (routed && ('everyone' in routed.scope || ('supplier' in routed.scope && routed.scope.supplier === SUPPLIER))) out.push(routed);
      }
    }
    return out;
  } finally {
    await ledger.close();
  }
}

/**
 * At least once and in order per account: every delivery of an event came after at least one delivery of each
 * earlier event of its ordering key (a repeat after a restart comes late, which is allowed; a jump ahead is not).
 */
export function orderViolations(want: readonly RoutedEvent[], received: readonly Received[]): string[] {
  const indexOf = new Map<string, { key: string; index: number }>();
  const perKey = new Map<string, number>();
  for (const r of want) {
    const index = perKey.get(r.orderingKey) ?? 0;
    perKey.set(r.orderingKey, index + 1);
    indexOf.set(r.event.id, { key: r.orderingKey, index });
  }
  const seen = new Map<string, Set<number>>();
  const violations: string[] = [];
  for (const got of received) {
    const at = indexOf.get(got.id);
    if (!at) continue;
    const delivered = seen.get(at.key) ?? new Set<number>();
    for (let j = 0; j < at.index; j++) if (!delivered.has(j)) violations.push(`${at.key}: event ${at.index} before event ${j}`);
    delivered.add(at.index);
    seen.set(at.key, delivered);
  }
  return violations;
}

export async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}


import fc from 'fast-check';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RoutedEvent } from '../../src/external-events/catalogue.js';
import type { DeliveryResult } from '../../src/relay/webhooks/deliver.js';
import { WebhookSink } from '../../src/relay/webhooks/webhook-sink.js';
import { createTestLedger, type TestLedger } from '../support/ledger.js';

/**
 * The delivery engine's guarantees over arbitrary messages and failures: no message is sent before every
 * earlier message of its key was delivered; the position it reports settled never passes a message that is
 * neither delivered nor parked in the store; once the receiver stops failing, everything arrives and
 * nothing stays parked.
 */
const routed = (position: number, key: number): RoutedEvent => ({
  position,
  event: { id: `evt-${position}`, type: 'data_import.import_process.staged-v1', timestamp: '2026-11-29T10:00:00Z', data: { key } },
  scope: { supplier: 'S' },
  orderingKey: `account:S/${key}`,
});

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
}

describe('the webhook delivery engine', () => {
  let test: TestLedger;
  beforeAll(async () => {
    test = await createTestLedger({ store: 'sqlite' });
  });
  afterAll(() => test.close());

  it('keeps each key in order, settles only what is delivered or parked, and delivers everything once the receiver answers', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 40 }),
        // Per message, how many attempts fail before one succeeds; and an outage: attempts during it fail.
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 40, maxLength: 40 }),
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 1, max: 6 }),
        // Pauses between pushes (ms): the log is read while deliveries settle.
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 40, maxLength: 40 }),
        async (keys, failuresOf, outageAttempts, concurrency, pauses) => {
          const endpointId = `we_prop_${run++}`;
          const messages = keys.map((key, i) => routed(i + 1, key));
          const delivered = new Set<number>();
          const attemptsOf = new Map<number, number>();
          const violations: string[] = [];
          let calls = 0;
          const sink = new WebhookSink({
            endpointId,
            url: 'http://receiver.test/',
            deliver: async (_url, headers, body): Promise<DeliveryResult> => {
              const position = Number(headers['webhook-id']!.slice('evt-'.length));
              const message = messages[position - 1]!;
              for (const earlier of messages.slice(0, position - 1)) {
                if (earlier.orderingKey === message.orderingKey && !delivered.has(earlier.position)) violations.push(`${position} sent before ${earlier.position}`);
              }
              expect(JSON.parse(body)).toMatchObject({ type: message.event.type });
              await new Promise((resolve) => setTimeout(resolve, (position * 7) % 3));
              const attempt = (attemptsOf.get(position) ?? 0) + 1;
              attemptsOf.set(position, attempt);
              const failed = ++calls <= outageAttempts || attempt <= failuresOf[position - 1]!;
              if (!failed) delivered.add(position);
              return { status: failed ? 500 : 200, durationMs: 1, error: failed ? 'HTTP 500' : null, retryAfterMs: null };
            },
            secrets: async () => ['whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0'],
            relays: test.ledger.relays,
            readEvent: async (position) => messages[position - 1] ?? null,
            recordAttempt: () => undefined,
            disable: async () => undefined,
            schedule: [0, 1, 2, 4],
            disableAfterMs: 60_000,
            concurrency,
            logger: pino({ level: 'silent' }),
          });
          try {
            const check = async (readThrough: number) => {
              const settled = sink.settledThrough(readThrough);
              const parked = new Set((await test.ledger.relays.parked(endpointId, 1_000)).map((p) => p.position));
              for (const m of messages.slice(0, Math.max(0, settled))) {
                if (!delivered.has(m.position) && !parked.has(m.position)) violations.push(`settled through ${settled} past ${m.position}`);
              }
            };
            for (const m of messages) {
              await sink.push(m);
              await check(m.position);
              if (pauses[m.position - 1]! > 0) await new Promise((resolve) => setTimeout(resolve, pauses[m.position - 1]));
            }
            const all = await until(() => delivered.size === messages.length, 10_000);
            await check(messages.length);
            expect(violations).toEqual([]);
            expect(all).toBe(true);
            expect(await until(async () => (await test.ledger.relays.parked(endpointId, 1_000)).length === 0, 5_000)).toBe(true);
            expect(sink.settledThrough(messages.length)).toBe(messages.length);
          } finally {
            await sink.close();
            await test.ledger.relays.unpark(endpointId, { from: 0 });
          }
        },
      ),
      { numRuns: Number(process.env['LEDGER_FUZZ_RUNS'] ?? 10) },
    );
  }, 120_000);
});

describe('the webhook delivery engine read-ahead', () => {
  it('reads on past its window once the messages in it are delivered, with nobody asking how far it settled', async () => {
    const test = await createTestLedger({ store: 'sqlite' });
    const delivered: number[] = [];
    const sink = new WebhookSink({
      endpointId: 'we_window',
      url: 'http://receiver.test/',
      deliver: async (_url, headers) => {
        delivered.push(Number(headers['webhook-id']!.slice('evt-'.length)));
        return { status: 204, durationMs: 1, error: null, retryAfterMs: null };
      },
      secrets: async () => ['whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0'],
      relays: test.ledger.relays,
      readEvent: async () => null,
      recordAttempt: () => undefined,
      disable: async () => undefined,
      schedule: [0],
      disableAfterMs: 60_000,
      concurrency: 4,
      logger: pino({ level: 'silent' }),
      windowSize: 5,
    });
    try {
      for (let position = 1; position <= 60; position++) await sink.push(routed(position, position % 7));
      expect(await until(() => delivered.length === 60, 5_000)).toBe(true);
      expect(sink.settledThrough(60)).toBe(60);
    } finally {
      await sink.close();
      await test.close();
    }
  });
});

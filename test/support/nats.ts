import { randomBytes } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { skipBecause } from './skip.js';

/** The NATS server with JetStream the relay tests publish to (`.ci/run` starts one where it is not running). */
export const TEST_NATS_URL = process.env['LEDGER_TEST_NATS_URL'] ?? 'nats://127.0.0.1:4222';

/** Why NATS cannot be reached, or null when it can; under CI=true a missing server is a failure, never a silent skip. */
export async function natsUnavailable(): Promise<string | null> {
  let nc: NatsConnection | null = null;
  try {
    nc = await connect({ servers: TEST_NATS_URL, timeout: 2_000, maxReconnectAttempts: 0 });
    return null;
  } catch (error) {
    const why = `NATS is not reachable at ${TEST_NATS_URL}: ${error instanceof Error ? error.message : String(error)}`;
    if (process.env['CI'] === 'true') throw new Error(`the relay tests need NATS with JetStream under CI: ${why}`);
    return why;
  } finally {
    await nc?.close();
  }
}

/** True (with a skipped test saying why) when NATS is missing on this machine. */
export async function skipWithoutNats(): Promise<boolean> {
  return skipBecause(await natsUnavailable());
}

/** A stream name and subject prefix of the test's own, so tests never see each other's messages. */
export function testStream(): { stream: string; subjectPrefix: string } {
  const id = randomBytes(6).toString('hex');
  return { stream: `TEST_${id}`, subjectPrefix: `t_${id}` };
}

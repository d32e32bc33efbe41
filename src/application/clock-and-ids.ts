import { randomBytes, randomUUID } from 'node:crypto';

/** The time the service reads, injected so tests can fix it. */
export type Clock = () => Date;

/** Every source of randomness the service uses, injected so tests can fix it. */
export interface IdGenerator {
  /**
   * A new UUID, version 7 (`uuidv7`): its first 48 bits are the millisecond it was made, so the ids of the
   * events appended one after another sort one after another, and the log's unique index on `event_id`
   * grows at its end like the log itself, where random (v4) ids would each land on a B-tree page of its own
   * and every commit would write those pages again.
   */
  uuid(): string;
  /** `A-` followed by 8 uppercase hexadecimal digits. */
  platformAccountNumber(): string;
  /** A new API key: its public id and the secret key shown once to the operator. */
  apiKey(): { keyId: string; key: string };
}

let lastMs = -1;
let counter = 0;

/**
 * A UUID version 7 (RFC 9562, 5.7): the Unix millisecond in the first 48 bits, then a 12-bit counter that
 * orders the ids of one millisecond (method 1 of 6.2: at its end the millisecond is moved on, so the ids of
 * this process never go backwards), then 62 random bits. The random bits, and the variant, are those of
 * Node's `randomUUID()`, which draws them from a pool, where the `uuid` package's v7 asks the CSPRNG for
 * 16 bytes on every call: every event, request and command takes an id, so the pool keeps ids cheap.
 */
export function uuidv7(now = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
  } else if (++counter > 0xfff) {
    lastMs++;
    counter = 0;
  }
  const time = lastMs.toString(16).padStart(12, '0');
  // randomUUID(): xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx; from index 18 on, the variant and the last 62 random bits.
  return `${time.slice(0, 8)}-${time.slice(8)}-7${counter.toString(16).padStart(3, '0')}${randomUUID().slice(18)}`;
}

export const randomIds: IdGenerator = {
  uuid: () => uuidv7(),
  platformAccountNumber: () => `A-${randomBytes(4).toString('hex').toUpperCase()}`,
  apiKey: () => {
    const keyId = `key_${randomBytes(6).toString('hex')}`;
    return { keyId, key: `ilk_${randomBytes(32).toString('base64url')}` };
  },
};

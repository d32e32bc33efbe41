import { randomBytes, randomUUID } from 'node:crypto';

/** The time the service reads, injected so tests can fix it. */
export type Clock = () => Date;

/** Every source of randomness the service uses, injected so tests can fix it. */
export interface IdGenerator {
  /**
   * A new UUID v7 (`uuidv7`): time-ordered, so the log's unique index on `event_id` grows at its end like the
   * log itself, where random (v4) ids would each land on a B-tree page of their own, written again every commit.
   */
  uuid(): string;
  /** `A-` followed by 8 uppercase hexadecimal digits. */
  platformAccountNumber(): string;
  /** A new API key: its public id and the secret key shown once to the operator. */
  apiKey(): { keyId: string; key: string };
  /** A webhook signing secret: `whsec_` and the base64 of 32 random bytes (the Standard Webhooks form). */
  webhookSecret(): string;
}

let lastMs = -1;
let counter = 0;

/**
 * A UUID v7 (RFC 9562, 5.7): the Unix millisecond in 48 bits, a 12-bit counter ordering the ids of one
 * millisecond (method 1 of 6.2: when it runs out the millisecond moves on, so ids never go backwards), then
 * 62 random bits taken from Node's pooled `randomUUID()`, cheaper than asking the CSPRNG on every id.
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
  webhookSecret: () => `whsec_${randomBytes(32).toString('base64')}`,
};

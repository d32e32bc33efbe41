import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signatureHeader } from '../../src/relay/webhooks/signature.js';

const secret = () => `whsec_${randomBytes(24).toString('base64')}`;

describe('webhook signatures', () => {
  it('verify with the Standard Webhooks reference library, under each secret of a rotation, and under no other', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.json(), fc.integer({ min: 0, max: 120 }), (id, body, skew) => {
        const [fresh, old, other] = [secret(), secret(), secret()];
        const timestamp = Math.floor(Date.now() / 1000) - skew;
        const headers = { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatureHeader([fresh, old], id, timestamp, body) };
        expect(new Webhook(fresh).verify(body, headers)).toEqual(JSON.parse(body));
        expect(new Webhook(old).verify(body, headers)).toEqual(JSON.parse(body));
        expect(() => new Webhook(other).verify(body, headers)).toThrow();
        // A changed body, id or timestamp does not verify.
        expect(() => new Webhook(fresh).verify(`${body} `, headers)).toThrow();
        expect(() => new Webhook(fresh).verify(body, { ...headers, 'webhook-id': `${id}x` })).toThrow();
      }),
      { numRuns: 50 },
    );
  });
});

import { createHmac } from 'node:crypto';

/** What a signing secret looks like: `whsec_` + base64 of its random bytes (the Standard Webhooks form). */
export const SECRET_PREFIX = 'whsec_';

/**
 * The `webhook-signature` header of one attempt (Standard Webhooks): `v1,` + base64 HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<body>` under each secret, space separated: during a rotation the new
 * secret and the old one both sign, so a receiver holding either verifies.
 */
export function signatureHeader(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string {
  const content = `${id}.${timestampSeconds}.${body}`;
  return secrets
    .map((secret) => `v1,${createHmac('sha256', Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64')).update(content).digest('base64')}`)
    .join(' ');
}

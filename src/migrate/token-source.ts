import { setTimeout } from 'node:timers/promises';
import { NoAnswer, type ApiClient } from './api-client.js';

/**
 * Access tokens for a migration that outlives them (hours, for a token of 60 minutes): obtained with the
 * API key, renewed with the refresh token a few minutes before expiry, and at once on a 401 (the service's
 * clock may be ahead). A refused refresh token (after 7 days) falls back to the API key. One renewal at a
 * time: workers needing a token meanwhile wait for it.
 */
export interface TokenSource {
  current(): Promise<string>;
  /** The service refused `rejected` (401): obtain another, unless a newer one already replaced it. */
  renew(rejected: string): Promise<string>;
}

const TOKEN_ATTEMPTS = 5;
/** Renew this long before the access token's own expiry. */
const RENEW_BEFORE_MS = 5 * 60 * 1000;

/** The token could not be obtained: a bad or revoked API key, or a service that is not ours. */
export class TokenRefused extends Error {
  override name = 'TokenRefused';
}

const MUTATION = 'mutation($input: ObtainTokenInput!) { obtainToken(input: $input) { token refreshToken refreshExpiresIn } }';

interface Issued {
  readonly token: string;
  readonly refreshToken: string;
  /** When the access token expires on the client's clock: its arrival plus its lifetime (unknown: 60 min). */
  readonly expiresAt: number;
}

/**
 * How long a JWT is valid, from its `iat` and `exp` claims (unverified: the client only plans renewals). A
 * lifetime, counted from the token's arrival on the client's clock, so a skewed clock still renews on time.
 */
export function tokenLifetimeMs(token: string): number | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const { exp, iat } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown; iat?: unknown };
    return typeof exp === 'number' && typeof iat === 'number' && exp > iat ? (exp - iat) * 1000 : null;
  } catch {
    return null;
  }
}

export function createTokenSource(
  client: Pick<ApiClient, 'graphql'>,
  apiKey: string,
  options: { now?: () => number } = {},
): TokenSource {
  const now = options.now ?? Date.now;
  let issued: Issued | null = null;
  let pending: Promise<Issued> | null = null;

  const ask = async (input: Record<string, string>): Promise<Issued | 'refused'> => {
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await client.graphql(MUTATION, { input });
        const data = (answer.body as { data?: { obtainToken?: { token?: unknown; refreshToken?: unknown } | null } } | null)?.data?.obtainToken;
        if (answer.status === 200 && data && typeof data.token === 'string' && typeof data.refreshToken === 'string') {
          return { token: data.token, refreshToken: data.refreshToken, expiresAt: now() + (tokenLifetimeMs(data.token) ?? 60 * 60 * 1000) };
        }
        // GraphQL answers a refused key or token with 200 and data null; a 4xx is a refusal too.
        if (answer.status === 200 || (answer.status >= 400 && answer.status < 500 && answer.status !== 429)) return 'refused';
      } catch (error) {
        if (!(error instanceof NoAnswer) || attempt >= TOKEN_ATTEMPTS) throw error;
      }
      if (attempt >= TOKEN_ATTEMPTS) throw new TokenRefused('the token service kept failing');
      await setTimeout(Math.min(10_000, 250 * 2 ** attempt) * Math.random());
    }
  };

  const obtain = async (): Promise<Issued> => {
    if (issued) {
      const renewed = await ask({ refreshToken: issued.refreshToken });
      if (renewed !== 'refused') return renewed;
    }
    const fresh = await ask({ APIKey: apiKey });
    if (fresh === 'refused') throw new TokenRefused('the service refused the API key (authentication_failed): check --api-key or LEDGER_API_KEY');
    return fresh;
  };

  const renewOnce = (): Promise<Issued> => {
    pending ??= obtain()
      .then((next) => (issued = next))
      .finally(() => {
        pending = null;
      });
    return pending;
  };

  return {
    async current() {
      if (issued && issued.expiresAt - now() > RENEW_BEFORE_MS) return issued.token;
      return (await renewOnce()).token;
    },
    async renew(rejected) {
      if (issued && issued.token !== rejected) return issued.token;
      return (await renewOnce()).token;
    },
  };
}

import type { ApiAnswer } from './api-client.js';
import { MigrationAborted } from './migrate.js';
import type { Sender } from './retry.js';

/** The service's answer, or the verification stops: it cannot be judged without it. */
export function answered<B>(outcome: Awaited<ReturnType<Sender['send']>>, what: string): ApiAnswer<B> {
  if (outcome.kind === 'interrupted') throw new MigrationAborted('interrupted', false);
  if (outcome.kind === 'no-answer') throw new MigrationAborted(`${what}: the service did not answer: ${outcome.error}`, false);
  const answer = outcome.answer as ApiAnswer<B>;
  if (answer.status === 401 || answer.status === 403) throw new MigrationAborted(`${what} answered ${answer.status}: does the supplier exist, and is the key scoped to it?`, true);
  return answer;
}


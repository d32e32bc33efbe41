import { ofType, type Answer, type Events } from './answer.js';

/** accounts/ (v2): 201 with an empty body once the account creation is scheduled. */
export function scheduledAnswer(): Answer<Record<string, never>> {
  return { status: 201, body: {} };
}

/** Staged and scheduled in one unit: the events are there only if it succeeded. */
export function scheduledAnswerFromEvents(events: Events): Answer | null {
  return ofType(events, 'AccountCreationScheduled').length > 0 ? scheduledAnswer() : null;
}

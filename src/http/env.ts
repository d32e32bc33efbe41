import type { Logger } from 'pino';
import type { Principal } from '../application/tokens.js';
import type { BeforeCommit } from '../store/event-store.js';

/** Variables every request carries through the middleware chain. */
export interface AppEnv {
  Variables: {
    requestId: string;
    /** The caller's W3C `traceparent`, when it sent a valid one (trace-context.ts). */
    traceparent: string | undefined;
    logger: Logger;
    principal: Principal;
    /**
     * Checks the request's credential again, exactly as a new request's would be checked (its key's status
     * read fresh): what a long-lived answer (the event feed's stream) calls to stop once the key is revoked
     * or the token expires. Throws `authentication_failed` as the first check would.
     */
    recheckCredential: () => Promise<Principal>;
    /**
     * Set by a probe whose 503 is the expected answer of an instance still starting: the request's log
     * line is then at info, as an orchestrator polls it many times before the instance is ready.
     */
    expectedUnavailable: true | undefined;
    /** Set under an Idempotency-Key: records the key with every write the request makes (idempotency.ts). */
    beforeCommit: BeforeCommit | undefined;
    /** The JSON answer the request rendered and its body's text, kept by answer.ts for the Idempotency-Key middleware. */
    answer: { readonly res: Response; readonly text: string } | undefined;
  };
}

import type { Logger } from 'pino';
import type { Principal } from '../application/tokens.js';

/** Variables every request carries through the middleware chain. */
export interface AppEnv {
  Variables: {
    requestId: string;
    logger: Logger;
    principal: Principal;
    /** The request body as read by json-body.ts, before it is decoded and parsed. */
    jsonBodyBytes: Uint8Array;
  };
}

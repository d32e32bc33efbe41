import { parentPort, workerData } from 'node:worker_threads';
import { serveRelays, type RelayThreadData } from './relay/relay-thread.js';

// The relay thread's module: events out on a ledger and an event loop of their own (src/relay/relay-thread.ts).
void serveRelays(parentPort!, workerData as RelayThreadData);

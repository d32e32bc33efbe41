import { parentPort, workerData } from 'node:worker_threads';
import { rebuildAnswer } from './answers/recoveries.js';
import { decidersByName } from './domain/deciders.js';
import { serveWriter, type WriterThreadData } from './store/sqlite/writer-thread.js';

// The SQLite writer thread's module (LEDGER_SQLITE_WRITER=thread): what it needs from the layers above the
// store is handed to it here, as src/ledger.ts does for the service's thread.
serveWriter(parentPort!, workerData as WriterThreadData, { deciders: decidersByName, rebuildAnswer });

import { parentPort, workerData } from 'node:worker_threads';
import { decidersByName } from '../../../src/domain/deciders.js';
import { serveWriter, type WriterThreadData } from '../../../src/store/sqlite/writer-thread.js';
import { templateAnswer } from '../contract/harness.js';

// The writer thread of the store contract's ledgers: src/sqlite-writer.ts with the contract's answer rebuilder.
serveWriter(parentPort!, workerData as WriterThreadData, { deciders: decidersByName, rebuildAnswer: templateAnswer });

import pino from 'pino';
import type { NetworkOperator, OperatorAnswer } from '../../src/adapters/network-operators.js';
import type { Ledger } from '../../src/ledger.js';
import { createPopulateBatch } from '../../src/application/supply-point-populate.js';
import type { SupplyType } from '../../src/domain/account-import-process/identifiers.js';
import { PopulateWorker, type PopulateProgress, type PopulateWorkerOptions } from '../../src/populate/worker.js';
import { fakeSleep } from '../support/fake-sleep.js';
import { operator, type TestClock } from '../support/ledger.js';
import { supplyPointBody } from '../support/fake-operator.js';

export const WORKER_ACTOR = { actor: 'system:populate-worker', requestId: null };

/** A PRM (14 digits) numbered n. */
export const prm = (n: number) => `1${String(n).padStart(13, '0')}`;
/** A PCE (GI + 6 digits) numbered n. */
export const pce = (n: number) => `GI${String(n).padStart(6, '0')}`;

export interface OperatorCall {
  readonly supplyType: SupplyType;
  readonly identifier: string;
  /** The test clock when the call started (virtual milliseconds). */
  readonly at: number;
}

/** An in-memory operator: `answer(id, callNumber)` decides each answer; every call is recorded with the virtual time. */
export function scriptedOperator(
  supplyType: SupplyType,
  clock: TestClock,
  calls: OperatorCall[],
  answer: (identifier: string, call: number, signal?: AbortSignal) => Promise<OperatorAnswer> | OperatorAnswer = (id) => found(id),
): NetworkOperator {
  const counts = new Map<string, number>();
  return {
    supplyType,
    unavailableReason: null,
    async fetchSupplyPoint(identifier, signal) {
      const call = (counts.get(identifier) ?? 0) + 1;
      counts.set(identifier, call);
      calls.push({ supplyType, identifier, at: clock.now.getTime() });
      return answer(identifier, call, signal);
    },
  };
}

export function found(identifier: string): OperatorAnswer {
  const body = supplyPointBody(identifier);
  return {
    kind: 'found',
    supplyPoint: { identifier, address: { line1: '12 rue des Lilas', postcode: '69003', city: 'Lyon' }, details: body },
  };
}

/** Resolves `aborted` when the signal fires, never otherwise: a call the operator never answers. */
export function hangUntilAborted(signal?: AbortSignal): Promise<OperatorAnswer> {
  return new Promise((resolve) => signal?.addEventListener('abort', () => resolve({ kind: 'aborted' }), { once: true }));
}

export function testWorker(
  ledger: Ledger,
  clock: TestClock,
  operators: Record<SupplyType, NetworkOperator>,
  options: Partial<PopulateWorkerOptions> = {},
  onProgress?: (progress: PopulateProgress) => void,
): PopulateWorker {
  return new PopulateWorker({
    ctx: ledger,
    limits: ledger.limits,
    operators,
    logger: pino({ level: 'silent' }),
    actor: WORKER_ACTOR,
    sleep: fakeSleep(clock),
    ...(onProgress ? { onProgress } : {}),
    options,
  });
}

export async function newBatch(
  ledger: Ledger,
  prmIds: readonly string[],
  pceIds: readonly string[],
  customerCategory: 'Domestic' | 'Business' = 'Domestic',
): Promise<string> {
  const { batchId } = await createPopulateBatch(
    ledger,
    { request: { prm_ids: [...prmIds], pce_ids: [...pceIds], customer_category: customerCategory }, importSuppliers: ['LEGACY_ENERGIE'] },
    operator,
  );
  return batchId;
}

/** For each request stream of the log: how many times it ended (imported or errored). */
export async function endsPerRequest(ledger: Ledger): Promise<Map<string, string[]>> {
  const ends = new Map<string, string[]>();
  for (const stored of await ledger.store.readAll(0, 1_000_000)) {
    if (!stored.streamId.startsWith('supply-point-populate-request:')) continue;
    const list = ends.get(stored.streamId) ?? [];
    if (stored.event.type === 'SupplyPointImported' || stored.event.type === 'SupplyPointPopulateRequestErrored') list.push(stored.event.type);
    ends.set(stored.streamId, list);
  }
  return ends;
}

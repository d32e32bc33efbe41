import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accountImportProcessesProjection, type AccountImportProcessRow } from '../../../projections/account-import-processes.js';
import { importActivityProjection } from '../../../projections/import-throughput.js';
import type { Row } from '../../../src/store/projection-rows.js';
import { collapsibleTables, PgProjectionTable } from '../../../src/store/postgres/pg-projection-writer.js';

/**
 * Which tables of a pipelined batch are written once, as their rows stand after the batch, rather than once a
 * unit (src/store/postgres/pg-projection-writer.ts): only where PostgreSQL refuses at least what it would
 * refuse unit by unit (a refusal has the batch redone unit by unit; refusing less would answer differently).
 */

const processes = new PgProjectionTable(accountImportProcessesProjection);
const activity = new PgProjectionTable(importActivityProjection);

const process = (ext: string, platformAccountNumber: string | null): AccountImportProcessRow => ({
  importSupplier: 'ACME',
  externalAccountNumber: ext,
  state: platformAccountNumber === null ? 'STAGED' : 'IMPORTED',
  platformAccountNumber,
  operationsTeamName: null,
  businessContractIdentifier: null,
  platformBusinessId: null,
  transferStatus: 'UNKNOWN',
  stageCount: 1,
  firstStagedAt: '2026-11-23T10:00:00.000Z',
  lastStagedAt: '2026-11-23T10:00:00.000Z',
  accountCreatedAt: null,
  updatedAt: '2026-11-23T10:00:00.000Z',
});
const active = (at: string): Row => ({ importSupplier: 'ACME', firstStagedAt: '2026-11-23T10:00:00.000Z', lastActivityAt: at });

type Entry = { table: PgProjectionTable; row: Row | null; existed: boolean; stored: Row | null };
/** A batch's rows (as stored before it) and each unit's states, by row id. */
function batch(stored: Record<string, { table: PgProjectionTable; row: Row | null }>, units: Record<string, Row | null>[]) {
  const rows = new Map<string, Entry>();
  for (const [id, { table, row }] of Object.entries(stored)) {
    const last = [...units].reverse().find((unit) => id in unit);
    rows.set(id, { table, row: last ? last[id]! : row, existed: row !== null, stored: row });
  }
  return collapsibleTables(rows, units.map((unit) => new Map(Object.entries(unit))));
}

describe('collapsed projection writes in a pipelined PostgreSQL batch', () => {
  it('given a row of a table keyed only by its primary key touched by every unit, when the batch is written, then once', () => {
    const tables = batch({ a: { table: activity, row: active('09:00') } }, [{ a: active('10:00') }, { a: active('10:01') }, { a: active('10:02') }]);
    expect(tables.has(activity)).toBe(true);
  });

  it('given new rows whose unique values stay as they are through the batch, then once', () => {
    const tables = batch({ one: { table: processes, row: null }, two: { table: processes, row: null } }, [
      { one: process('ONE', null) },
      { two: process('TWO', null) },
      { one: process('ONE', null) },
    ]);
    expect(tables.has(processes)).toBe(true);
  });

  it('given a row whose unique value changes in the batch, then unit by unit', () => {
    const tables = batch({ one: { table: processes, row: process('ONE', null) } }, [{ one: process('ONE', 'A-00000001') }]);
    expect(tables.has(processes)).toBe(false);
  });

  it('given a row of a table with a unique index deleted in the batch, then unit by unit', () => {
    const tables = batch({ one: { table: processes, row: process('ONE', 'A-00000001') } }, [{ one: null }]);
    expect(tables.has(processes)).toBe(false);
  });

  it('given a row of a table keyed only by its primary key deleted and written again, then once', () => {
    const tables = batch({ a: { table: activity, row: active('09:00') } }, [{ a: null }, { a: active('10:00') }]);
    expect(tables.has(activity)).toBe(true);
  });

  it('given a state never written that PostgreSQL would refuse (a NOT NULL column empty, U+0000 in text), then unit by unit', () => {
    const nullInNotNull = batch({ a: { table: activity, row: null } }, [{ a: { ...active('10:00'), lastActivityAt: null } }, { a: active('10:01') }]);
    expect(nullInNotNull.has(activity)).toBe(false);
    const nul = batch({ a: { table: activity, row: null } }, [{ a: active('10:00\u0000') }, { a: active('10:01') }]);
    expect(nul.has(activity)).toBe(false);
    // The last state is written, so PostgreSQL judges it itself.
    const last = batch({ a: { table: activity, row: null } }, [{ a: active('10:01') }, { a: active('10:00\u0000') }]);
    expect(last.has(activity)).toBe(true);
  });

  it('property: when a table is collapsed, a unique clash the units meet one by one is a clash in the rows written once', () => {
    const value = fc.constantFrom(null, 'A-1', 'A-2', 'A-3');
    const ids = ['ONE', 'TWO', 'THREE', 'FOUR'];
    const arb = fc.record({
      stored: fc.tuple(...ids.map(() => fc.option(value, { nil: undefined }))),
      units: fc.array(fc.array(fc.record({ id: fc.constantFrom(...ids), value: fc.option(value, { nil: undefined }) }), { minLength: 1, maxLength: 3 }), {
        minLength: 1,
        maxLength: 5,
      }),
    });
    fc.assert(
      fc.property(arb, ({ stored, units }) => {
        // undefined: no row (stored) or the row deleted (a unit).
        const before = new Map(ids.map((id, i) => [id, stored[i] === undefined ? null : process(id, stored[i]!)]));
        const states = units.map((unit) => {
          const state: Record<string, Row | null> = {};
          for (const { id, value: v } of unit) state[id] = v === undefined ? null : process(id, v);
          return state;
        });
        const touched = new Set(states.flatMap((state) => Object.keys(state)));
        const collapsed = batch(Object.fromEntries([...touched].map((id) => [id, { table: processes, row: before.get(id)! }])), states).has(processes);
        // Unit by unit, each row written in turn: a clash when a written value is held by another live row.
        const live = new Map(before);
        let clashOneByOne = false;
        for (const state of states) {
          for (const [id, row] of Object.entries(state)) {
            const v = (row as AccountImportProcessRow | null)?.platformAccountNumber ?? null;
            if (v !== null && [...live].some(([other, r]) => other !== id && r?.platformAccountNumber === v)) clashOneByOne = true;
            live.set(id, row as AccountImportProcessRow | null);
          }
        }
        // Written once: the rows as they stand after the batch, with the rows the batch did not touch.
        const values = [...live.values()].map((row) => row?.platformAccountNumber ?? null).filter((v) => v !== null);
        const clashOnce = new Set(values).size < values.length;
        if (collapsed && clashOneByOne) expect(clashOnce).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });
});

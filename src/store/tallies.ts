import type { AnyRowProjection } from '../../projections/projection.js';
import { inlineProjections } from '../../projections/index.js';
import { rowCacheId, type Key, type Row } from './projection-rows.js';

/** A net change to one row of a tally: add `counts` (negative to take away). */
export interface TallyChange {
  readonly tally: AnyRowProjection;
  readonly key: Key;
  readonly counts: Record<string, number>;
}

/** What moving a row of a tally's source from `before` to `after` changes in the tally, netted per tally row. */
export function tallyChanges(tally: AnyRowProjection, before: Row | null, after: Row | null): TallyChange[] {
  const spec = tally.tally;
  if (!spec || before === after) return [];
  const changes = new Map<string, { key: Key; counts: Record<string, number> }>();
  const add = (row: Row | null, sign: 1 | -1) => {
    if (row === null) return;
    for (const contribution of spec.contributions(row)) {
      const id = rowCacheId('', contribution.key);
      let change = changes.get(id);
      if (!change) {
        change = { key: contribution.key, counts: {} };
        changes.set(id, change);
      }
      for (const [column, amount] of Object.entries(contribution.counts)) change.counts[column] = (change.counts[column] ?? 0) + sign * amount;
    }
  };
  add(before, -1);
  add(after, 1);
  const result: TallyChange[] = [];
  for (const change of changes.values()) {
    if (Object.values(change.counts).some((n) => n !== 0)) result.push({ tally, key: change.key, counts: change.counts });
  }
  return result;
}

/** The tally row after `change`; null (no row) once every count is back to zero. */
export function applyTallyChange(row: Row | null, change: TallyChange): Row | null {
  const spec = change.tally.tally!;
  const next: Row = row ? { ...row } : { ...change.key, ...Object.fromEntries(spec.counts.map((column) => [column, 0])) };
  for (const [column, amount] of Object.entries(change.counts)) next[column] = (next[column] as number) + amount;
  return spec.counts.every((column) => next[column] === 0) ? null : next;
}

/** `projections` with every tally's source and every source's tallies: a tally is moved by its source's rows, so rebuilt with it. */
export function withTallyPartners(projections: readonly AnyRowProjection[]): AnyRowProjection[] {
  const chosen = [...projections];
  const add = (p: AnyRowProjection) => {
    if (!chosen.includes(p)) chosen.push(p);
  };
  for (const p of projections) if (p.tally) add(p.tally.source);
  for (const p of inlineProjections) if (p.tally && chosen.includes(p.tally.source)) add(p);
  return chosen;
}

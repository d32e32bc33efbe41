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
  const netted = new Map<string, TallyChange>();
  for (const { key, counts } of before === null ? [] : spec.contributions(before)) addTo(netted, { tally, key, counts }, -1);
  for (const { key, counts } of after === null ? [] : spec.contributions(after)) addTo(netted, { tally, key, counts }, 1);
  return moving(netted);
}

/** `changes` added up per tally row. */
export function netTallyChanges(changes: readonly TallyChange[]): TallyChange[] {
  const netted = new Map<string, TallyChange>();
  for (const change of changes) addTo(netted, change, 1);
  return moving(netted);
}

function addTo(netted: Map<string, TallyChange>, { tally, key, counts }: TallyChange, sign: 1 | -1): void {
  const id = rowCacheId(tally.name, key);
  let sum = netted.get(id);
  if (!sum) netted.set(id, (sum = { tally, key, counts: {} }));
  for (const [column, amount] of Object.entries(counts)) sum.counts[column] = (sum.counts[column] ?? 0) + sign * amount;
}

/** The netted changes that move a count: a row whose every count adds up to zero is left out. */
const moving = (netted: Map<string, TallyChange>) => [...netted.values()].filter((change) => Object.values(change.counts).some((n) => n !== 0));

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

import type pg from 'pg';

/** Bumps the generation; sent in the transaction that changes one of READ_GENERATION_TABLES (its row lock orders the bumps). */
export function bumpReadGeneration(client: pg.ClientBase): Promise<unknown> {
  return client.query({
    name: 'ledger_bump_read_generation',
    text: 'INSERT INTO read_generation (id, generation) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET generation = read_generation.generation + 1',
  });
}

/** The generation as of now (0 before the first bump): a statement of its own, so it sees every change committed before it began. */
export async function readGeneration(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ generation: string }>({ name: 'ledger_read_generation', text: 'SELECT generation FROM read_generation WHERE id = 1' });
  return Number(rows[0]?.generation ?? 0);
}

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOperationsTeam } from '../../src/application/operator.js';
import { accessToken, expectErrorBody } from '../support/http.js';
import { createTestApi, operator, TEAM, type TestApi } from '../support/ledger.js';

/** GET operations-teams/<name>/ (beyond the spec): what `import-ledger migrate` checks its --team with before its first write. */
const read = (name: string) => `/v1/data-import/operations-teams/${encodeURIComponent(name)}/`;

let api: TestApi;
beforeEach(async () => {
  api = await createTestApi();
});
afterEach(async () => {
  await api.close();
});

describe('GET operations-teams/<name>/', () => {
  it('answers 200 with the name for a team that exists, whichever supplier the token is scoped to', async () => {
    await createOperationsTeam(api.ledger, 'Back office Lyon', operator);
    for (const key of [api.key, api.otherKey]) {
      const token = await accessToken(api, key);
      for (const name of [TEAM, 'Back office Lyon']) {
        const res = await api.get(read(name), token);
        expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: { name } });
      }
    }
  });

  it('answers 404 not_found for a team that does not exist, names being exact (as process matches them)', async () => {
    const token = await accessToken(api);
    for (const name of ['Migration', TEAM.toLowerCase(), `${TEAM} `]) {
      const body = await expectErrorBody(await api.get(read(name), token), 404, 'not_found');
      expect(body.detail).toBe(`No operations team ${name}.`);
    }
  });

  it('needs a token (401)', async () => {
    await expectErrorBody(await api.app.request(read(TEAM)), 401);
  });
});

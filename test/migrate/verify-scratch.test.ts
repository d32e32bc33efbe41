import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VerifyScratch } from '../../src/migrate/verify-scratch.js';

describe("verify's scratch file: what it keeps per account of the folder", () => {
  let work: string;
  let scratch: VerifyScratch;
  beforeEach(async () => {
    work = mkdtempSync(join(tmpdir(), 'verify-scratch-'));
    scratch = await VerifyScratch.open(work);
  });
  afterEach(() => {
    scratch.close();
    rmSync(work, { recursive: true, force: true });
  });

  it("gives each business once, in name order over several pages, with its lines in the file's order (a business of businesses/ alone has none)", async () => {
    scratch.addBusinessLine('BIZ-B', '"b1"');
    scratch.addBusinessLine('BIZ-A', '"a1"');
    scratch.addBusinessLine('BIZ-C', null);
    scratch.addBusinessLine('BIZ-B', '"b2"');
    scratch.addBusinessLine('BIZ-A', null);
    scratch.addBusinessLine('BIZ-D', '"d1"');
    scratch.businessLinesRead();
    const businesses: string[] = [];
    for await (const business of scratch.businesses(2)) businesses.push(business);
    expect(businesses).toEqual(['BIZ-A', 'BIZ-B', 'BIZ-C', 'BIZ-D']);
    expect(businesses.map((business) => scratch.businessLinesOf(business))).toEqual([['"a1"'], ['"b1"', '"b2"'], [], ['"d1"']]);
  });

  it('keeps the first fingerprint of an account; the same account again is refused', () => {
    expect(scratch.expect('A-2', 'fp-a2')).toBe(true);
    expect(scratch.expect('A-1', 'fp-a1')).toBe(true);
    expect(scratch.expect('A-2', 'fp-other')).toBe(false);
    expect(scratch.expectedCount).toBe(2);
    expect(scratch.take('A-2')).toBe('fp-a2');
  });

  it('gives an expected fingerprint once: taken, the account is no longer expected', () => {
    scratch.expect('A-1', 'fp-a1');
    expect(scratch.take('A-1')).toBe('fp-a1');
    expect(scratch.take('A-1')).toBeUndefined();
    expect(scratch.take('NEVER')).toBeUndefined();
    expect(scratch.expectedCount).toBe(0);
  });

  it('lists the accounts left expected in the folder order, those not imported in the order found, each with its first refusal code', () => {
    for (const ext of ['C', 'A', 'E', 'B', 'D', 'F']) scratch.expect(ext, `fp-${ext}`);
    scratch.take('E');
    scratch.notImported('E', 'pending');
    scratch.take('B');
    scratch.notImported('B', 'failed');
    scratch.take('F'); // imported: neither missing nor refused
    expect(scratch.unimportedCount).toBe(5);

    // Newest refusal first: the first code an unimported account gets is its latest.
    expect(scratch.refuse('A', 'newest')).toBe(true);
    expect(scratch.refuse('A', 'older')).toBe(false);
    expect(scratch.refuse('B', 'account_failed_validation')).toBe(true);
    expect(scratch.refuse('F', 'imported since')).toBe(false);
    expect(scratch.refuse('NEVER', 'x')).toBe(false);

    expect([...scratch.missing()]).toEqual([
      { ext: 'C', refusal: null },
      { ext: 'A', refusal: 'newest' },
      { ext: 'D', refusal: null },
    ]);
    expect([...scratch.notImportedAccounts()]).toEqual([
      { ext: 'E', state: 'pending', refusal: null },
      { ext: 'B', state: 'failed', refusal: 'account_failed_validation' },
    ]);
  });

  it('knows the accounts whose fingerprints differ', () => {
    scratch.differ('X');
    scratch.differ('Y');
    expect(scratch.differingCount).toBe(2);
    expect(scratch.isDiffering('X')).toBe(true);
    expect(scratch.isDiffering('Z')).toBe(false);
  });

  it('holds more accounts than one batch of writes, the first fingerprint of each kept', () => {
    const n = 12_345;
    for (let i = 0; i < n; i++) scratch.expect(`E-${i}`, `fp-${i}`);
    for (let i = 0; i < n; i += 1_000) expect(scratch.expect(`E-${i}`, 'again')).toBe(false);
    expect(scratch.expectedCount).toBe(n);
    expect(scratch.take(`E-${n - 1}`)).toBe(`fp-${n - 1}`);
    expect([...scratch.missing()].slice(0, 3).map((m) => m.ext)).toEqual(['E-0', 'E-1', 'E-2']);
  });

  it("lists a folder's .json names in JavaScript's sort order, over several pages, writable between them, as often as asked", async () => {
    const dir = join(work, 'accounts');
    mkdirSync(dir);
    // Above U+FFFF (a surrogate pair) sorts before U+FF21 in JavaScript, after it in UTF-8.
    const names = ['b.json', 'B.json', 'a.json', '\u{1F600}.json', '\uFF21.json', 'é.json', 'notes.txt', 'x.json.bak'];
    for (let i = 0; i < 2_500; i++) names.push(`ACC-${String(i).padStart(5, '0')}.json`);
    for (const name of names) writeFileSync(join(dir, name), '{}');
    mkdirSync(join(dir, 'folder.json')); // listed as migrate lists it: by name
    const expected = readdirSync(dir)
      .filter((name) => name.endsWith('.json'))
      .sort();
    expect(expected).toContain('\u{1F600}.json');

    const listed: string[] = [];
    for await (const name of scratch.sortedJsonNames(dir)) {
      listed.push(name);
      scratch.expect(name, 'fp'); // pass 1 writes while the names are read
    }
    expect(listed).toEqual(expected);
    expect(listed.indexOf('\u{1F600}.json')).toBeLessThan(listed.indexOf('\uFF21.json'));
    const again: string[] = [];
    for await (const name of scratch.sortedJsonNames(dir)) again.push(name);
    expect(again).toEqual(expected);
  });
});

describe("verify's scratch file: its folder", () => {
  it('is removed on close', async () => {
    const work = mkdtempSync(join(tmpdir(), 'verify-scratch-'));
    try {
      const scratch = await VerifyScratch.open(work);
      scratch.expect('A', 'fp');
      expect(readdirSync(work)).toHaveLength(1);
      scratch.close();
      expect(readdirSync(work)).toEqual([]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});

// Rebuilds every projection of a ledger from its log in place (scratch tables, then the swap), exactly
// as `import-ledger projections rebuild` does, and prints the summary as JSON.
// Usage: tsx bench/rebuild.ts <ledger.db>
import { inlineProjections } from '../projections/index.js';
import { openLedger } from '../src/ledger.js';

const [file] = process.argv.slice(2);
if (!file) throw new Error('usage: rebuild.ts <ledger.db>');
const ledger = await openLedger({ sqliteFile: file });
const summary = await ledger.projections.rebuild(inlineProjections);
await ledger.close();
process.stdout.write(`${JSON.stringify({ ...summary, maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024) })}\n`);

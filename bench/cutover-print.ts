// The cut-over bench's figures as the bench prints them (bench/results/cutover.json holds them all).
import type { CutoverFigures } from './cutover.js';

export function printCutover(f: CutoverFigures): void {
  const o = f.options;
  const runs = f.migrateRuns.map((r) => `${r.seconds} s exit ${r.code ?? r.signal}${r.failed ? ` (${r.failed} failed)` : ''}`).join(', then ');
  const lines = [
    `cut-over of ${o.accounts.toLocaleString()} accounts (${o.store}${o.instances > 1 ? `, ${o.instances} instances behind the balancer` : ''}, --concurrency ${o.concurrency}${o.kill ? `, --kill=${o.kill}` : ''}); load ${f.load.atStart.join(' ')} at the start, ${f.load.atEnd.join(' ')} at the end`,
    `  folder: ${(f.folder.bytes / 1e6).toFixed(0)} MB written in ${f.folder.writeSeconds} s; ${f.folder.businessAccounts.toLocaleString()} business accounts, ${f.folder.brokenAccounts.toLocaleString()} broken, ` +
      `${f.folder.notes.toLocaleString()} notes, ${f.folder.transactions.toLocaleString()} transactions, ${f.folder.statements.toLocaleString()} statements, ` +
      `${f.folder.paymentInstructions.toLocaleString()} payment instructions, ${f.folder.businessPaymentInstructions.toLocaleString()} business payment instructions`,
    `  end to end (migrate + verify wall): ${f.accountsPerSecond.toLocaleString()} accounts/s; a million accounts at that rate: ${f.hoursForAMillion} h`,
    `  migrate: ${runs}`,
    `  verify: ${f.verify.seconds} s, exit ${f.verify.code}, ${f.verify.differences} differences (${f.verify.extra} extra)`,
    `  CPU an account: service ${f.cpuMsPerAccount.service} ms${f.cpuMsPerAccount.postgres === null ? '' : `, PostgreSQL ${f.cpuMsPerAccount.postgres} ms (cluster-wide)`}, migrate ${f.cpuMsPerAccount.migrate} ms, verify ${f.cpuMsPerAccount.verify} ms`,
    `  peak RSS: service ${f.peakRssMb.service.join(', ')} MB; migrate ${f.peakRssMb.migrate.join(', ')} MB; verify ${f.peakRssMb.verify.join(', ')} MB`,
    `  written to disk an account: service ${f.diskWrittenKbPerAccount.service} KB${f.diskWrittenKbPerAccount.postgres === null ? '' : `, PostgreSQL ${f.diskWrittenKbPerAccount.postgres} KB (cluster-wide)`}; stored ${f.storedKbPerAccount} KB an account`,
    `  worst read polled every second: status ${f.worstReadMs.status} ms, progress ${f.worstReadMs.progress} ms (${f.worstReadMs.polls} polls${f.worstReadMs.unanswered ? `, ${f.worstReadMs.unanswered} unanswered while the service was down` : ''})`,
    `  the service's event loop: longest delay ${f.serviceLoop.delayMaxMs} ms, p99 ${f.serviceLoop.delayP99Ms} ms; GC pauses: ${gcPauses(f.serviceLoop.gc)}`,
    ...(f.kill ? [`  killed at ${f.kill.atSettledAccounts.toLocaleString()} settled accounts${f.kill.serviceDownSeconds === null ? '' : `; the service was down ${f.kill.serviceDownSeconds} s`}`] : []),
    `  the store holds: ${Object.entries(f.store).map(([k, n]) => `${k} ${n.toLocaleString()}`).join(', ')}${f.storeDifferences.length ? '' : ' (each as the folder: nothing twice)'}`,
    f.passed ? '  passed: verify exit 0, nothing stored twice' : `  FAILED:\n${f.problems.map((p) => `    - ${p}`).join('\n')}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n\n`);
}

/** `minor 620 (14 over 10 ms, 1,850 ms in all), major 12 (...)`: the kinds that paused at all. */
function gcPauses(gc: CutoverFigures['serviceLoop']['gc']): string {
  const kinds = Object.entries(gc).filter(([, p]) => p.pauses > 0);
  return kinds.length === 0 ? 'none' : kinds.map(([kind, p]) => `${kind} ${p.pauses.toLocaleString()} (${p.over10Ms} over 10 ms, ${p.ms.toLocaleString()} ms in all)`).join(', ');
}

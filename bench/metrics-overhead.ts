// The cost of the metrics: stage-account on fresh SQLite databases with LEDGER_METRICS_PORT set
// (and /metrics scraped every second, harsher than Prometheus' usual 15 s) and without it, alternating
// on/off/off/on so that a change in the machine's load hits both sides. Reports the rates and, steadier on a
// shared machine, the service's CPU time per request (utime + stime of the process from /proc).
import { readFileSync } from 'node:fs';

/** CPU seconds the process has used so far (user + system), from /proc/<pid>/stat; null off Linux. */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat (utime, stime), counted from the state field (3): indexes 11 and 12 here.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

export interface OverheadRun {
  readonly metrics: boolean;
  readonly rate: number;
  readonly cpuMsPerRequest: number | null;
  readonly p99Ms: number;
}

export interface OverheadFigures {
  readonly runs: readonly OverheadRun[];
  readonly rateOn: number;
  readonly rateOff: number;
  /** rateOn / rateOff. */
  readonly rateRatio: number;
  readonly cpuMsOn: number | null;
  readonly cpuMsOff: number | null;
  /** Samples served by one scrape at the end of the last metrics-on run. */
  readonly samplesPerScrape: number;
}

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / Math.max(values.length, 1);
const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * `stage(metricsPort)` starts a service on a fresh database (metrics on when a port is given), loads it with
 * stage-account, and returns the load's figures with the service's pid (still running) and a stop function.
 */
export async function measureMetricsOverhead(
  rounds: number,
  stage: (metricsPort: number | null) => Promise<{ ok: number; seconds: number; p99Ms: number; pid: number; cpuBefore: number | null; stop: () => Promise<void> }>,
  freePort: () => Promise<number>,
): Promise<OverheadFigures> {
  const runs: OverheadRun[] = [];
  let samplesPerScrape = 0;
  for (let round_ = 0; round_ < rounds; round_++) {
    // on/off, then off/on: neither side always runs first.
    for (const metrics of round_ % 2 === 0 ? [true, false] : [false, true]) {
      const port = metrics ? await freePort() : null;
      let scraping = true;
      const scraper = (async () => {
        while (port !== null && scraping) {
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          const text = await fetch(`http://127.0.0.1:${port}/metrics`)
            .then((res) => res.text())
            .catch(() => '');
          if (text) samplesPerScrape = text.split('\n').filter((line) => line && !line.startsWith('#')).length;
        }
      })();
      const result = await stage(port);
      const cpuAfter = cpuSeconds(result.pid);
      scraping = false;
      await scraper;
      await result.stop();
      runs.push({
        metrics,
        rate: Math.round(result.ok / result.seconds),
        cpuMsPerRequest: cpuAfter !== null && result.cpuBefore !== null ? round(((cpuAfter - result.cpuBefore) * 1000) / Math.max(result.ok, 1)) : null,
        p99Ms: result.p99Ms,
      });
    }
  }
  const on = runs.filter((r) => r.metrics);
  const off = runs.filter((r) => !r.metrics);
  const cpu = (rs: readonly OverheadRun[]) => (rs.every((r) => r.cpuMsPerRequest !== null) ? round(mean(rs.map((r) => r.cpuMsPerRequest!))) : null);
  const rateOn = Math.round(mean(on.map((r) => r.rate)));
  const rateOff = Math.round(mean(off.map((r) => r.rate)));
  return { runs, rateOn, rateOff, rateRatio: round(rateOn / Math.max(rateOff, 1)), cpuMsOn: cpu(on), cpuMsOff: cpu(off), samplesPerScrape };
}

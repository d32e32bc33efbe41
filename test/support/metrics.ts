import { LedgerMetrics } from '../../src/observability/metrics.js';
import { startMetricsServer, type MetricsServer } from '../../src/observability/metrics-server.js';

/** One scrape of the Prometheus text format: every sample by `name{labels}` (labels sorted), and the raw text. */
export interface Scrape {
  readonly text: string;
  readonly samples: ReadonlyMap<string, number>;
  /** The sample `name` with exactly these labels (0 when absent: a counter not yet moved). */
  value(name: string, labels?: Record<string, string>): number;
  /** Every sample of `name`, with its labels. */
  series(name: string): { labels: Record<string, string>; value: number }[];
}

const key = (name: string, labels: Record<string, string>) =>
  `${name}{${Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(',')}}`;

function parseLabels(text: string | undefined): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const match of (text ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[match[1]!] = match[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  return labels;
}

export function parseScrape(text: string): Scrape {
  const samples = new Map<string, number>();
  const byName = new Map<string, { labels: Record<string, string>; value: number }[]>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels = parseLabels(match[2]);
    const value = Number(match[3]);
    samples.set(key(match[1]!, labels), value);
    byName.set(match[1]!, [...(byName.get(match[1]!) ?? []), { labels, value }]);
  }
  return {
    text,
    samples,
    value: (name, labels = {}) => samples.get(key(name, labels)) ?? 0,
    series: (name) => byName.get(name) ?? [],
  };
}

/** Metrics that read their figures at every scrape (no caching), served on a free port of 127.0.0.1. */
export async function servedMetrics(): Promise<{ metrics: LedgerMetrics; server: MetricsServer; scrape(): Promise<Scrape> }> {
  const metrics = new LedgerMetrics({ queueMaxAgeMs: 0, businessMaxAgeMs: 0, ready: () => true });
  const server = await startMetricsServer(metrics, '127.0.0.1', 0, (error) => {
    throw error;
  });
  return {
    metrics,
    server,
    async scrape() {
      const res = await fetch(`http://127.0.0.1:${server.port}/metrics`);
      if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
      return parseScrape(await res.text());
    },
  };
}

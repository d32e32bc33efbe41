// One streamed read (a full list, an export) against the running service, measured for its targets:
// its time and items per second, the service's RSS growth while it runs, and the worst latency of a
// /healthz polled every 20 ms meanwhile.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** Resident set size of a process now (VmRSS), in MB; null once it is gone. */
export function rssMb(pid: number): number | null {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch {
    return null;
  }
}

export interface StreamedReadFigures {
  readonly seconds: number;
  readonly items: number;
  readonly itemsPerSecond: number;
  readonly bytes: number;
  /** Highest RSS sampled during the read minus the RSS just before it. */
  readonly rssGrowthMb: number;
  readonly worstHealthzMs: number;
  readonly healthzPolls: number;
}

/**
 * Counts the items of a body as it arrives: occurrences of `marker`, found across chunk boundaries too.
 * Searched in the bytes (no string made of them): the counting must not slow this process's own
 * /healthz polling down.
 */
function itemCounter(marker: string): (chunk: Uint8Array) => number {
  const needle = Buffer.from(marker, 'utf8');
  let carry = Buffer.alloc(0);
  return (chunk) => {
    const bytes = carry.length > 0 ? Buffer.concat([carry, chunk]) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let count = 0;
    for (let at = bytes.indexOf(needle); at !== -1; at = bytes.indexOf(needle, at + needle.length)) count++;
    carry = needle.length > 1 ? Buffer.from(bytes.subarray(Math.max(0, bytes.length - (needle.length - 1)))) : Buffer.alloc(0);
    return count;
  };
}

export async function measureStreamedRead(
  options: { base: string; path: string; headers: Record<string, string>; pid: number; itemMarker: string },
): Promise<StreamedReadFigures> {
  const before = rssMb(options.pid) ?? 0;
  let peak = before;
  let worst = 0;
  let polls = 0;
  let reading = true;
  // RSS sampled on its own timer, so a stalled event loop in the service does not thin the samples out.
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(options.pid) ?? 0)), 20);
  const poller = (async () => {
    while (reading) {
      const started = performance.now();
      const res = await fetch(`${options.base}/healthz`);
      await res.arrayBuffer();
      const ms = performance.now() - started;
      worst = Math.max(worst, ms);
      polls++;
      if (ms < 20) await sleep(20 - ms);
    }
  })();
  const count = itemCounter(options.itemMarker);
  const started = performance.now();
  const res = await fetch(`${options.base}${options.path}`, { headers: options.headers });
  if (res.status !== 200 || !res.body) throw new Error(`${options.path}: ${res.status} ${await res.text()}`);
  let bytes = 0;
  let items = 0;
  for await (const chunk of res.body) {
    bytes += chunk.byteLength;
    items += count(chunk);
  }
  const seconds = (performance.now() - started) / 1000;
  reading = false;
  await poller;
  clearInterval(sampler);
  peak = Math.max(peak, rssMb(options.pid) ?? 0);
  return {
    seconds,
    items,
    itemsPerSecond: Math.round(items / seconds),
    bytes,
    rssGrowthMb: Math.round((peak - before) * 10) / 10,
    worstHealthzMs: Math.round(worst * 10) / 10,
    healthzPolls: polls,
  };
}

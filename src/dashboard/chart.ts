/**
 * The dashboard's imports-per-minute chart (uPlot bars), over the minutes since the migration began: a
 * migration of a few minutes fills the chart; an hour later the window is the last hour.
 */
import uPlot from 'uplot';
import type { operations } from '../client/api-types.js';

type PerMinute = operations['importProgress']['responses'][200]['content']['application/json']['imports_per_minute'];

/** The window is never narrower than this, so a migration's first minute is not one bar across the chart. */
const MIN_MINUTES = 5;

/**
 * The minutes shown: from the one the migration began in (its first staged account, `began`) to the current
 * one (the last of `perMinute`), at least MIN_MINUTES, at most the hour `perMinute` holds.
 */
function chartWindow(perMinute: PerMinute, began: string | null): PerMinute {
  const start = began === null ? Infinity : Date.parse(began);
  const first = perMinute.findIndex((m) => Date.parse(m.minute) + 60_000 > start);
  return perMinute.slice(Math.max(0, Math.min(first === -1 ? perMinute.length : first, perMinute.length - MIN_MINUTES)));
}

let chart: uPlot | null = null;

/** Draws the chart in `container` (the first call), or gives it the new minutes. */
export function drawChart(container: HTMLElement, hour: PerMinute, began: string | null): void {
  const perMinute = chartWindow(hour, began);
  // A minute without imports has no bar (null), rather than a bar of height 0 drawn as a line.
  const data: uPlot.AlignedData = [perMinute.map((m) => Date.parse(m.minute) / 1000), perMinute.map((m) => m.count || null)];
  const total = perMinute.reduce((sum, m) => sum + m.count, 0);
  container.setAttribute('aria-label', `Imports per minute over the last ${perMinute.length} minutes: ${total} in all.`);
  if (chart) {
    chart.setData(data);
    return;
  }
  chart = new uPlot(
    {
      width: Math.max(320, container.clientWidth || 600),
      height: 220,
      legend: { show: false },
      // Half a minute either side: the first and the last minute's bars are whole.
      scales: { x: { range: (_u, min, max) => [min - 30, max + 30] }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      // Ticks on whole minutes (1, 5, 10, 15, 30, 60 apart), however few minutes the window holds.
      axes: [{ stroke: '#4a5360', incrs: [60, 300, 600, 900, 1800, 3600] }, { stroke: '#4a5360', label: 'imports' }],
      series: [{}, { label: 'Imports', stroke: '#0b5cad', fill: 'rgba(11, 92, 173, 0.25)', width: 2, points: { show: false }, paths: uPlot.paths.bars!({ size: [0.8, 40] }) }],
    },
    data,
    container,
  );
}

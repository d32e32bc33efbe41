/** A progress bar on stderr when it is a terminal; otherwise a line every 10%. */
export function progressReporter(label: string, stream: NodeJS.WriteStream = process.stderr) {
  let lastDecile = -1;
  const started = performance.now();
  return {
    update(done: number, total: number): void {
      const fraction = total > 0 ? Math.min(done / total, 1) : 1;
      if (stream.isTTY) {
        const width = 30;
        const filled = Math.round(fraction * width);
        const rate = Math.round(done / Math.max((performance.now() - started) / 1000, 1e-3));
        stream.write(
          `\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}% ${done.toLocaleString()}/${total.toLocaleString()} (${rate.toLocaleString()}/s)`,
        );
      } else {
        const decile = Math.floor(fraction * 10);
        if (decile > lastDecile) {
          lastDecile = decile;
          stream.write(`${label}: ${(decile * 10).toString().padStart(3)}% (${done.toLocaleString()}/${total.toLocaleString()})\n`);
        }
      }
    },
    done(): void {
      if (stream.isTTY) stream.write('\n');
    },
  };
}

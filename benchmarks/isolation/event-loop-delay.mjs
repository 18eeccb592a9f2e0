// Preloaded into `silo serve` by the isolation benchmark (node --import): the event loop's delay,
// measured by perf_hooks inside the server. SIGUSR2 writes `ELD {p50,p99,max}` (ms) to stderr
// since the last signal, and starts a new measurement.
import { monitorEventLoopDelay } from 'node:perf_hooks';

const histogram = monitorEventLoopDelay({ resolution: 5 });
histogram.enable();
process.on('SIGUSR2', () => {
  const ms = (ns) => Math.round(ns / 1e4) / 100;
  process.stderr.write(`ELD ${JSON.stringify({ p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) })}\n`);
  histogram.reset();
});

/** benchmarks/results/migrate.md from the results of a run. */
import type { MigrateResults, Spread } from './run.js';

const fmt = (s: Spread, digits: number) => `${s.median.toFixed(digits)} [${s.min.toFixed(digits)}–${s.max.toFixed(digits)}]`;
const rss = (s: Spread | undefined) => (s === undefined ? 'n/a' : fmt(s, 0));
const count = (n: number) => n.toLocaleString('en-GB').replace(/,/g, ' ');

/** How much more the median peak RSS is for the large store than for the small one, at most over the targets. */
function growth(r: MigrateResults): string {
  const deltas = r.summary.flatMap((s) => (s.peakRssMiB && s.smallPeakRssMiB ? [{ target: s.target, mib: s.peakRssMiB.median - s.smallPeakRssMiB.median, of: s.smallPeakRssMiB.median }] : []));
  if (deltas.length === 0) return 'no peak was read';
  const worst = deltas.reduce((a, b) => (b.mib > a.mib ? b : a));
  const times = r.stores.large.silos / r.stores.small.silos;
  return `for ${times}× the silos the median peak is at most ${worst.mib.toFixed(0)} MiB higher (${worst.target}, +${((worst.mib / worst.of) * 100).toFixed(0)} %)`;
}

export function renderMarkdown(r: MigrateResults): string {
  const m = r.machine;
  const { large, small } = r.stores;
  const lines = [
    '# Migrate benchmark',
    '',
    `${r.date}, ${m.cpuModel} (${m.cores} cores), ${m.memoryGiB.toFixed(1)} GiB, Node ${r.node}${r.postgres ? `, PostgreSQL ${r.postgres}` : ''}. ` +
      `${r.rounds} round${r.rounds === 1 ? '' : 's'}${r.quick ? ' (quick mode)' : ''}, interleaved across targets. ` +
      'The stores\' own processes (PostgreSQL, redis-server, the cluster\'s three masters) run on the same cores as `silo migrate`. ' +
      'Produced by `npm run bench -- migrate`.',
    '',
    `\`silo migrate --from sqlite://… --to <target>\`, spawned as a user runs it (\`node packages/silo-server/bin/silo.js migrate\`, the \`silo\` bin), from a SQLite store of ` +
      `${count(large.silos)} silos of ~${r.siloBytes / 1024} KB (3 accounts, 6 keys, ${count(large.versions)} versions: every other silo has two), ` +
      `${large.dataMB.toFixed(0)} MB of silo data, seeded by \`silo import\` of generated export lines. ` +
      'Each target is emptied before and after every run. Wall time is from spawn to exit (Node start and the closing count checks included); ' +
      'MB/s counts the silo data moved (every kept version, 10^6 bytes). Medians, the lowest and highest round in brackets.',
    '',
    `| Target | silos/s | MB/s | Wall time (s) | Peak RSS, ${count(large.silos)} silos (MiB) | Peak RSS, ${count(small.silos)} silos (MiB) |`,
    '| --- | --- | --- | --- | --- | --- |',
    ...r.summary.map((s) => `| ${s.target} | **${fmt(s.silosPerSec, 0)}** | ${fmt(s.mbPerSec, 1)} | ${fmt(s.seconds, 1)} | ${rss(s.peakRssMiB)} | ${rss(s.smallPeakRssMiB)} |`),
    ...r.notRun.map((n) => `| ${n.name} | not run: ${n.reason} | | | | |`),
    '',
    `Peak RSS is the migrate process's VmHWM (/proc/<pid>/status, read every 50 ms, the last value kept). ` +
      `The last column migrates a store of ${count(small.silos)} silos in the same rounds, to see whether memory grows with the store: ${growth(r)}.`,
    '',
    `Seeding took ${large.seedSeconds.toFixed(0)} s and ${small.seedSeconds.toFixed(0)} s (export lines of ${large.exportMB.toFixed(0)} MB and ${small.exportMB.toFixed(0)} MB); the whole run ${(r.totalSeconds / 60).toFixed(1)} minutes. Every run is in \`migrate.json\`.`,
    '',
  ];
  return lines.join('\n');
}

/**
 * A strict parser of the Prometheus text exposition format (0.0.4), for the metrics tests: every
 * line is a `# HELP`, a `# TYPE` or a sample of a family declared before it; label values are
 * unescaped (`\\`, `\"`, `\n`); a histogram's buckets are cumulative, end with `le="+Inf"` and
 * equal its `_count`. Anything else throws, naming the line.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: MetricType;
  help: string;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** A float as Prometheus reads one (Go's ParseFloat: `NaN`, `+Inf`, `-Inf` in any case, as prom-client writes `Nan`). */
function parseValue(text: string, line: number): number {
  if (/^\+?inf(inity)?$/i.test(text)) return Infinity;
  if (/^-inf(inity)?$/i.test(text)) return -Infinity;
  if (/^nan$/i.test(text)) return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`line ${line}: invalid value ${JSON.stringify(text)}`);
  return Number(text);
}

/** `{a="x",b="y"}` from position `at`: the labels and where they end. */
function parseLabels(text: string, at: number, line: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = at + 1;
  for (;;) {
    if (text[i] === '}') return { labels, end: i + 1 };
    const eq = text.indexOf('=', i);
    if (eq < 0) throw new Error(`line ${line}: a label without "="`);
    const name = text.slice(i, eq);
    if (!LABEL.test(name)) throw new Error(`line ${line}: invalid label name ${JSON.stringify(name)}`);
    if (Object.hasOwn(labels, name)) throw new Error(`line ${line}: label ${name} twice`);
    if (text[eq + 1] !== '"') throw new Error(`line ${line}: label ${name} without a quoted value`);
    let value = '';
    let j = eq + 2;
    for (;; j++) {
      const c = text[j];
      if (c === undefined) throw new Error(`line ${line}: unterminated label value`);
      if (c === '"') break;
      if (c === '\\') {
        const next = text[++j];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else throw new Error(`line ${line}: invalid escape \\${next}`);
      } else value += c;
    }
    labels[name] = value;
    i = j + 1;
    if (text[i] === ',') i++;
    else if (text[i] !== '}') throw new Error(`line ${line}: expected , or } after label ${name}`);
  }
}

/** The family a sample name belongs to (histogram and summary samples carry suffixes). */
function familyOf(families: Map<string, Family>, name: string): Family | undefined {
  if (families.has(name)) return families.get(name);
  for (const suffix of ['_bucket', '_count', '_sum']) {
    if (!name.endsWith(suffix)) continue;
    const family = families.get(name.slice(0, -suffix.length));
    if (family && (family.type === 'histogram' || family.type === 'summary')) return family;
  }
  return undefined;
}

export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const lines = text.split('\n');
  if (lines.at(-1) !== '') throw new Error('the exposition does not end with a newline');
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw === '') return;
    if (raw.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(raw);
      if (!m) return; // a comment
      const [, kind, name, rest] = m as unknown as [string, string, string, string];
      if (!NAME.test(name)) throw new Error(`line ${line}: invalid metric name ${JSON.stringify(name)}`);
      const family = families.get(name) ?? { name, type: 'untyped' as MetricType, help: '', samples: [] };
      families.set(name, family);
      if (kind === 'HELP') family.help = rest.replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
      else {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest)) throw new Error(`line ${line}: unknown type ${rest}`);
        if (family.samples.length > 0) throw new Error(`line ${line}: TYPE of ${name} after its samples`);
        family.type = rest as MetricType;
      }
      return;
    }
    const brace = raw.indexOf('{');
    const space = raw.indexOf(' ');
    const nameEnd = brace >= 0 && brace < space ? brace : space;
    if (nameEnd < 0) throw new Error(`line ${line}: a sample without a value`);
    const name = raw.slice(0, nameEnd);
    if (!NAME.test(name)) throw new Error(`line ${line}: invalid metric name ${JSON.stringify(name)}`);
    let labels: Record<string, string> = {};
    let rest = raw.slice(nameEnd);
    if (rest.startsWith('{')) {
      const parsed = parseLabels(raw, nameEnd, line);
      labels = parsed.labels;
      rest = raw.slice(parsed.end);
    }
    const parts = rest.trim().split(/\s+/);
    if (parts.length < 1 || parts.length > 2 || parts[0] === '') throw new Error(`line ${line}: expected a value (and a timestamp)`);
    const family = familyOf(families, name);
    if (!family) throw new Error(`line ${line}: sample ${name} of no declared family`);
    family.samples.push({ name, labels, value: parseValue(parts[0]!, line) });
  });
  for (const family of families.values()) {
    if (family.type === 'counter') for (const s of family.samples) if (!(s.value >= 0)) throw new Error(`counter ${s.name} is ${s.value}`);
    if (family.type === 'histogram') checkHistogram(family);
  }
  return families;
}

function checkHistogram(family: Family): void {
  const series = new Map<string, { buckets: [number, number][]; count?: number }>();
  const keyOf = (labels: Record<string, string>) => JSON.stringify(Object.entries(labels).filter(([k]) => k !== 'le').sort());
  for (const s of family.samples) {
    const key = keyOf(s.labels);
    const one = series.get(key) ?? { buckets: [] };
    series.set(key, one);
    if (s.name.endsWith('_bucket')) one.buckets.push([parseValue(s.labels.le ?? 'x', 0), s.value]);
    else if (s.name.endsWith('_count')) one.count = s.value;
  }
  for (const [key, { buckets, count }] of series) {
    if (buckets.length === 0 || buckets.at(-1)![0] !== Infinity) throw new Error(`histogram ${family.name}${key}: no +Inf bucket`);
    for (let i = 1; i < buckets.length; i++) {
      if (!(buckets[i]![0] > buckets[i - 1]![0] && buckets[i]![1] >= buckets[i - 1]![1])) throw new Error(`histogram ${family.name}${key}: buckets not cumulative`);
    }
    if (buckets.at(-1)![1] !== count) throw new Error(`histogram ${family.name}${key}: +Inf bucket ${buckets.at(-1)![1]} is not _count ${count}`);
  }
}

/** The value of the sample `name` with exactly these labels (undefined when there is none). */
export function valueOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  const family = familyOf(families, name);
  const want = JSON.stringify(Object.entries(labels).sort());
  return family?.samples.find((s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === want)?.value;
}

/** Every sample line of the exposition (its series count). */
export function seriesCount(families: Map<string, Family>): number {
  let n = 0;
  for (const family of families.values()) n += family.samples.length;
  return n;
}

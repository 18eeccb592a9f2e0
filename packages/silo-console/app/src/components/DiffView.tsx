import { diffStats, type DiffLine } from '../lib/diff.js';

/** Shows a line diff; each line also carries its +/- sign as text, so colour is never the only cue. */
export function DiffView({ lines, caption }: { lines: DiffLine[]; caption: string }) {
  const { added, removed } = diffStats(lines);
  return (
    <figure class="diff">
      <figcaption>
        {caption}: {added === 0 && removed === 0 ? 'no differences' : `${added} line${added === 1 ? '' : 's'} added, ${removed} removed`}
      </figcaption>
      <pre tabIndex={0} aria-label={caption}>
        {lines.map((l, i) => (
          <span key={i} class={l.op === '+' ? 'add' : l.op === '-' ? 'del' : 'same'}>
            {l.op} {l.text}
          </span>
        ))}
      </pre>
    </figure>
  );
}

import type { ComponentChildren } from 'preact';
import { formatTime } from '../lib/format.js';
import { REGIONS, type Region } from '../lib/types.js';

/** An error in words, beside what caused it; role=alert so it is read out when it appears. */
export function ErrorText({ id, message }: { id?: string; message: string | undefined | null }) {
  if (!message) return null;
  return (
    <p class="error" id={id} role="alert">
      {message}
    </p>
  );
}

/** An instant as "2026-11-22 02:29 UTC", kept on one line, with its machine-readable value. */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <>never</>;
  return (
    <time dateTime={iso} class="time">
      {formatTime(iso)}
    </time>
  );
}

/** A success or progress message, announced politely. */
export function StatusText({ message }: { message: string | undefined | null }) {
  return (
    <p class="status" role="status">
      {message ?? ''}
    </p>
  );
}

/** A labelled form control with its error right below it. */
export function Field({
  id,
  label,
  error,
  hint,
  wide,
  children,
}: {
  id: string;
  label: string;
  error?: string | undefined;
  hint?: string;
  /** Across every column of a `.columns` grid (a long input, such as a filter). */
  wide?: boolean;
  children: ComponentChildren;
}) {
  // The hint goes under the input, so that inputs side by side line up whatever their hints' length.
  return (
    <div class={wide ? 'field wide' : 'field'}>
      <label for={id}>{label}</label>
      {children}
      {hint ? (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
      <ErrorText id={`${id}-error`} message={error} />
    </div>
  );
}

/** aria-describedby for a control inside Field: its hint and its error, when shown. */
export function describedBy(id: string, opts: { hint?: boolean; error?: string | undefined }): string | undefined {
  const ids = [opts.hint ? `${id}-hint` : '', opts.error ? `${id}-error` : ''].filter((s) => s !== '');
  return ids.length > 0 ? ids.join(' ') : undefined;
}

/** The region picker (the select of a Field labelled `Region`). */
export function RegionSelect({ id, value, onChange }: { id: string; value: Region; onChange: (region: Region) => void }) {
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value as Region)}>
      {REGIONS.map((r) => (
        <option key={r} value={r}>
          {r}
        </option>
      ))}
    </select>
  );
}

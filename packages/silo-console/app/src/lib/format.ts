/** Sizes in the units people read: bytes below a kilobyte, then kB and MB (decimal, as the plan limits are). */
export function formatBytes(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return '—';
  if (n < 1000) return `${n} B`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)} kB`;
  return `${(n / 1_000_000).toFixed(1)} MB`;
}

/** RFC 3339 UTC times as "2026-11-22 02:29 UTC": one fixed, unambiguous form, whatever the locale. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return 'never';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** Whole pages for a total; at least one, so an empty list still reads "page 1 of 1". */
export function pageCount(total: number, perPage: number): number {
  return Math.max(1, Math.ceil(total / Math.max(1, perPage)));
}

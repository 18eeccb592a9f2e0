/**
 * The audit log page's words and addresses: the API query of a page of entries, and the "since"
 * filter between the page's datetime input (read as UTC, as every time the console shows) and
 * the RFC 3339 instant the API takes.
 */
import type { AuditEntry, AuditFilter } from './types.js';

const FILTERS = ['silo', 'actor', 'since'] as const;

/** The filters that are set, in a fixed order (empty strings dropped): for the API and the page's address alike. */
export function filterParams(filter: AuditFilter): [string, string][] {
  return FILTERS.flatMap((name) => {
    let value = filter[name]?.trim();
    // An actor as the table shows it (`console:admin`) is the name after its type: the API filters by name.
    if (name === 'actor' && value) value = value.replace(ACTOR_TYPE, '');
    return value ? [[name, value] as [string, string]] : [];
  });
}

const ACTOR_TYPE = /^(manage|console|command|program):/;

/** The query of `GET /api/v1/manage/audit`: a page, and only the filters given. */
export function auditQuery(page: number, perPage: number, filter: AuditFilter): string {
  return new URLSearchParams([['page', String(page)], ['per_page', String(perPage)], ...filterParams(filter)]).toString();
}

/** A datetime input's value (`2026-11-26T09:18`, seconds optional), read as UTC, as RFC 3339; undefined when empty or not a time. */
export function sinceFromInput(value: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value)) return undefined;
  const d = new Date(`${value}Z`);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** An RFC 3339 instant as a datetime input's value, in UTC (to the minute, or the second when it has seconds). */
export function sinceToInput(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const utc = d.toISOString();
  return d.getUTCSeconds() === 0 && d.getUTCMilliseconds() === 0 ? utc.slice(0, 16) : utc.slice(0, 19);
}

/** Who acted, as the `silo audit list` command prints it: `manage:default`, `console:admin`, `command:silo`. */
export function actorText(entry: Pick<AuditEntry, 'actor'>): string {
  return `${entry.actor.type}:${entry.actor.name}`;
}

/** Whether the entry's silo can still be opened: a deleted one's page would only say "not found". */
export function siloLinkable(entry: Pick<AuditEntry, 'action' | 'file_uuid'>): boolean {
  return entry.file_uuid !== undefined && entry.action !== 'silo.delete';
}

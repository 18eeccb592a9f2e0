/** The live feed's list: the newest first, at most KEEP, and no link to a silo that was deleted. */

export interface FeedEvent {
  /** Arrival order, for keys. */
  seq: number;
  type: string;
  at: string;
  uuid: string;
  name: string | undefined;
  version: number | undefined;
  /** The silo is gone (this event, or a later one, is its delete): shown without a link. */
  gone: boolean;
}

export const KEEP = 200;

/** The list with `event` added: a delete also marks every earlier event of its silo as gone. */
export function addEvent(list: FeedEvent[], event: FeedEvent): FeedEvent[] {
  const gone = event.type === 'delete';
  const earlier = gone ? list.map((e) => (e.uuid === event.uuid && !e.gone ? { ...e, gone: true } : e)) : list;
  return [{ ...event, gone: gone || event.gone }, ...earlier].slice(0, KEEP);
}

/** A `create`, `update` or `delete` event's data (JSON), read defensively: a line that is not JSON is still shown by its type. */
export function readEvent(type: string, data: string, seq: number, now = new Date()): FeedEvent {
  let parsed: Record<string, unknown> = {};
  try {
    const v: unknown = JSON.parse(data);
    if (typeof v === 'object' && v !== null) parsed = v as Record<string, unknown>;
  } catch {
    // shown by its type alone
  }
  const str = (k: string) => (typeof parsed[k] === 'string' ? (parsed[k] as string) : undefined);
  return {
    seq,
    type,
    at: str('updated_at') ?? now.toISOString(),
    uuid: str('file_uuid') ?? '',
    name: str('file_name'),
    version: typeof parsed['version'] === 'number' ? parsed['version'] : undefined,
    gone: false,
  };
}

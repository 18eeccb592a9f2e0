/** Answers a server would give, for tests whose fetch or server is scripted. */

export const FIXTURE_UUID = '3f2c1a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f';

/** A silo's metadata answer (version 1) as JSON text, with `fields` over the defaults. */
export function metaText(fields: Record<string, unknown> = {}): string {
  return JSON.stringify({
    file_name: 'x',
    file_uuid: FIXTURE_UUID,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    is_public: false,
    region_name: 'api',
    version: 1,
    ...fields,
  });
}

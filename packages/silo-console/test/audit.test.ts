import { describe, expect, it } from 'vitest';
import { actorText, auditQuery, siloLinkable, sinceFromInput, sinceToInput } from '../app/src/lib/audit.js';

const UUID = '08afdea5-ad6d-4009-b5ab-f6f86dc75000';

describe('the audit log page', () => {
  it('asks the API for a page with only the filters given', () => {
    expect(auditQuery(1, 25, {})).toBe('page=1&per_page=25');
    expect(auditQuery(2, 25, { silo: UUID, actor: 'console admin', since: '2026-11-26T09:18:00.000Z' })).toBe(
      `page=2&per_page=25&silo=${UUID}&actor=console+admin&since=2026-11-26T09%3A18%3A00.000Z`,
    );
    expect(auditQuery(1, 100, { silo: '', actor: '  ' })).toBe('page=1&per_page=100');
    // An actor copied from the table (type:name) filters by its name, as the API does.
    expect(auditQuery(1, 25, { actor: 'console:admin' })).toBe('page=1&per_page=25&actor=admin');
    expect(auditQuery(1, 25, { actor: 'command:silo' })).toBe('page=1&per_page=25&actor=silo');
    expect(auditQuery(1, 25, { actor: 'deploy:bot' })).toBe('page=1&per_page=25&actor=deploy%3Abot');
  });

  it('reads the since input as UTC, as every time the console shows, and writes it back', () => {
    expect(sinceFromInput('2026-11-26T09:18')).toBe('2026-11-26T09:18:00.000Z');
    expect(sinceFromInput('2026-11-26T09:18:30')).toBe('2026-11-26T09:18:30.000Z');
    expect(sinceFromInput('')).toBeUndefined();
    expect(sinceFromInput('2026-13-40T09:18')).toBeUndefined();
    expect(sinceToInput('2026-11-26T09:18:00.000Z')).toBe('2026-11-26T09:18');
    expect(sinceToInput('2026-11-26T10:18:30+01:00')).toBe('2026-11-26T09:18:30');
    expect(sinceToInput(undefined)).toBe('');
    expect(sinceToInput('yesterday')).toBe('');
  });

  it('names the actor as the silo command does, and links a silo unless the entry deleted it', () => {
    expect(actorText({ actor: { type: 'command', name: 'silo serve' } })).toBe('command:silo serve');
    expect(siloLinkable({ action: 'silo.patch', file_uuid: UUID })).toBe(true);
    expect(siloLinkable({ action: 'silo.delete', file_uuid: UUID })).toBe(false);
    expect(siloLinkable({ action: 'key.create' })).toBe(false);
  });
});

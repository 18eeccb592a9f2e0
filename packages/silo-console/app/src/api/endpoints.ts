import type { AuditFilter, AuditList, CreatedKey, CreatedWebhook, Delivery, Duration, KeyInfo, KeyType, Me, Region, SessionAnswer, SiloList, SiloMeta, VersionList, WebhookEvent, WebhookInfo } from '../lib/types.js';
import { auditQuery } from '../lib/audit.js';
import { call, callText, CONSOLE_BASE } from './client.js';

/** Every endpoint the console calls, in one place: the console API, then the management API. */
const CONSOLE_API = `${CONSOLE_BASE}/api`;
const MANAGE = '/api/v1/manage';
const silo = (uuid: string) => `${MANAGE}/${encodeURIComponent(uuid)}`;
/**
 * RFC 7240, on every write of a silo: the console needs only the metadata and version back (it
 * already has the text it sent, and the editor is not reloaded from the answer), so the server
 * need not send the whole document again.
 */
const MINIMAL = { Prefer: 'return=minimal' };

export const api = {
  signIn: (user: string, password: string) => call<Me>('POST', `${CONSOLE_API}/sign-in`, { json: { user, password }, expect401: true }),
  signOut: () => call<void>('POST', `${CONSOLE_API}/sign-out`),
  me: () => call<Me>('GET', `${CONSOLE_API}/me`, { expect401: true }),
  /** Who is signed in, answered 200 either way: the first call of every page load (no 401 in the browser's console). */
  session: () => call<SessionAnswer>('GET', `${CONSOLE_API}/session`),

  keys: () => call<{ keys: KeyInfo[] }>('GET', `${CONSOLE_API}/keys`),
  createKey: (body: { type: KeyType; name: string; duration?: Duration; silos?: string[] }) =>
    call<CreatedKey>('POST', `${CONSOLE_API}/keys`, { json: body }),
  revokeKey: (type: KeyType, name: string) =>
    call<void>('DELETE', `${CONSOLE_API}/keys/${encodeURIComponent(type)}/${encodeURIComponent(name)}`),

  silos: (page: number, perPage = 25) => call<SiloList>('GET', `${MANAGE}/silos?page=${page}&per_page=${perPage}`),
  meta: (uuid: string) => call<SiloMeta>('GET', `${MANAGE}/meta/${encodeURIComponent(uuid)}`),
  /** The raw `{"data": ...}` text: parsed with silo-query's parseJson, numbers stay exact. */
  dataText: (uuid: string) => callText('GET', silo(uuid)),
  /** `dataText` is the editor's checked JSON text, spliced in unparsed so its numbers are sent as typed. */
  create: (name: string, dataText: string, region: Region, isPublic: boolean) =>
    call<SiloMeta>('POST', `${MANAGE}/`, {
      text: `{"file_name":${JSON.stringify(name)},"region_name":${JSON.stringify(region)},"is_public":${isPublic},"file_data":${dataText}}`,
      headers: MINIMAL,
    }),
  updateData: (uuid: string, dataText: string) => call<SiloMeta>('PATCH', silo(uuid), { text: `{"file_data":${dataText}}`, headers: MINIMAL }),
  update: (uuid: string, fields: { file_name?: string; is_public?: boolean; region_name?: Region }) =>
    call<SiloMeta>('PATCH', silo(uuid), { json: fields, headers: MINIMAL }),
  remove: (uuid: string) => call<{ deleted: boolean }>('DELETE', silo(uuid)),

  versions: (uuid: string, page = 1, perPage = 100) => call<VersionList>('GET', `${silo(uuid)}/versions?page=${page}&per_page=${perPage}`),
  versionText: (uuid: string, version: number) => callText('GET', `${silo(uuid)}/versions/${version}`),
  restore: (uuid: string, version: number) => call<SiloMeta>('POST', `${silo(uuid)}/versions/${version}/restore`, { headers: MINIMAL }),

  /** The account's audit log, newest first (`per_page` up to 100). */
  audit: (page: number, perPage: number, filter: AuditFilter) => call<AuditList>('GET', `${MANAGE}/audit?${auditQuery(page, perPage, filter)}`),

  webhooks: () => call<{ webhooks: WebhookInfo[] }>('GET', `${MANAGE}/webhooks`),
  createWebhook: (body: { url: string; events: WebhookEvent[]; silos?: string[] }) => call<CreatedWebhook>('POST', `${MANAGE}/webhooks`, { json: body }),
  removeWebhook: (id: string) => call<{ id: string; deleted: boolean }>('DELETE', `${MANAGE}/webhooks/${encodeURIComponent(id)}`),
  deliveries: (id: string) => call<{ deliveries: Delivery[] }>('GET', `${MANAGE}/webhooks/${encodeURIComponent(id)}/deliveries`),
  retryDeliveries: (id: string) => call<{ id: string; rescheduled: number }>('POST', `${MANAGE}/webhooks/${encodeURIComponent(id)}/retry`),

  openapi: () => call<unknown>('GET', '/api/v1/openapi.json'),
};

export const EVENTS_URL = `${MANAGE}/events`;

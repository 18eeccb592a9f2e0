import { filterParams } from './audit.js';
import type { AuditFilter } from './types.js';

/** The console's pages, addressed by the URL hash (`#/silos/<uuid>`), so the server serves one page. */
export type Route =
  | { page: 'sign-in' }
  | { page: 'silos'; pageNo: number }
  | { page: 'new-silo' }
  | { page: 'silo'; uuid: string }
  | { page: 'history'; uuid: string; version?: number }
  | { page: 'keys' }
  | { page: 'webhooks' }
  // Its filters are in the address: paging keeps them, and the back button undoes a filter.
  | { page: 'audit'; pageNo: number; filter: AuditFilter }
  | { page: 'playground'; uuid?: string }
  | { page: 'feed' }
  | { page: 'not-found'; hash: string };

const UUID = /^[0-9a-fA-F-]{36}$/;

/** `?page=N`, a whole number from 1 (anything else is page 1). */
function pageNoOf(query: URLSearchParams): number {
  const n = Number(query.get('page') ?? '1');
  return Number.isInteger(n) && n >= 1 ? n : 1;
}

function auditFilterOf(query: URLSearchParams): AuditFilter {
  const filter: AuditFilter = {};
  for (const name of ['silo', 'actor', 'since'] as const) {
    const value = query.get(name);
    if (value) filter[name] = value;
  }
  return filter;
}

export function parseRoute(hash: string): Route {
  const [pathPart = '', queryPart = ''] = hash.replace(/^#/, '').split('?');
  const parts = pathPart.split('/').filter((p) => p !== '').map(decodeURIComponent);
  const query = new URLSearchParams(queryPart);
  const [first, second, third, fourth] = parts;
  if (first === undefined) return { page: 'silos', pageNo: 1 };
  if (first === 'sign-in' && parts.length === 1) return { page: 'sign-in' };
  if (first === 'keys' && parts.length === 1) return { page: 'keys' };
  if (first === 'webhooks' && parts.length === 1) return { page: 'webhooks' };
  if (first === 'feed' && parts.length === 1) return { page: 'feed' };
  if (first === 'audit' && parts.length === 1) return { page: 'audit', pageNo: pageNoOf(query), filter: auditFilterOf(query) };
  if (first === 'playground' && parts.length <= 2) {
    return second !== undefined && UUID.test(second) ? { page: 'playground', uuid: second } : { page: 'playground' };
  }
  if (first === 'silos') {
    if (second === undefined) return { page: 'silos', pageNo: pageNoOf(query) };
    if (second === 'new' && parts.length === 2) return { page: 'new-silo' };
    if (UUID.test(second)) {
      if (third === undefined) return { page: 'silo', uuid: second };
      if (third === 'history' && fourth === undefined) return { page: 'history', uuid: second };
      if (third === 'history' && fourth !== undefined && /^[1-9]\d*$/.test(fourth) && parts.length === 4) {
        return { page: 'history', uuid: second, version: Number(fourth) };
      }
    }
  }
  return { page: 'not-found', hash };
}

export function href(route: Route): string {
  switch (route.page) {
    case 'sign-in':
      return '#/sign-in';
    case 'silos':
      return route.pageNo > 1 ? `#/silos?page=${route.pageNo}` : '#/silos';
    case 'new-silo':
      return '#/silos/new';
    case 'silo':
      return `#/silos/${route.uuid}`;
    case 'history':
      return `#/silos/${route.uuid}/history${route.version ? `/${route.version}` : ''}`;
    case 'keys':
      return '#/keys';
    case 'webhooks':
      return '#/webhooks';
    case 'audit': {
      const query = new URLSearchParams([...(route.pageNo > 1 ? [['page', String(route.pageNo)]] : []), ...filterParams(route.filter)]).toString();
      return query ? `#/audit?${query}` : '#/audit';
    }
    case 'playground':
      return route.uuid ? `#/playground/${route.uuid}` : '#/playground';
    case 'feed':
      return '#/feed';
    case 'not-found':
      return route.hash;
  }
}

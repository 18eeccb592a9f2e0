/**
 * Contract §19's audit route: `GET /api/v1/manage/audit?page=&per_page=&since=&silo=&actor=` with a
 * manage key (or the console's session): the account's entries, newest first, paged as the silo
 * list. auth (+ rate limit) → validation → audit service.
 */
import type { Context } from 'koa';
import { ValidationError } from '../model/index.js';
import type { AuditService } from '../audit/index.js';
import { auditQuery, type AuditQueryParams } from '../schemas/audit.js';
import { validator } from '../schemas/validate.js';
import type { Auth } from './auth.js';
import { onlyParam, pagingParams } from './manage.js';
import { sendJson } from './respond.js';

const checkQuery = validator<AuditQueryParams>(auditQuery);

export interface AuditDeps {
  auth: Auth;
  audit: AuditService;
}

export function auditHandlers({ auth, audit }: AuditDeps) {
  return {
    async list(ctx: Context): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      const params = new URLSearchParams(ctx.querystring);
      const raw = pagingParams(params);
      for (const name of ['since', 'silo', 'actor'] as const) {
        const value = onlyParam(params, name);
        if (value !== undefined) raw[name] = value;
      }
      const query = checkQuery(raw, 'query');
      const since = query.since === undefined ? undefined : Date.parse(query.since);
      if (since !== undefined && Number.isNaN(since)) {
        throw new ValidationError([{ loc: ['query', 'since'], msg: 'Input should be a valid datetime', type: 'datetime_parsing' }]);
      }
      const page = await audit.list(caller.account, {
        page: query.page ?? query.page_no ?? 1,
        perPage: query.per_page ?? 25,
        ...(since !== undefined ? { since } : {}),
        ...(query.silo !== undefined ? { silo: query.silo } : {}),
        ...(query.actor !== undefined ? { actor: query.actor } : {}),
      });
      sendJson(ctx, 200, page);
    },
  };
}

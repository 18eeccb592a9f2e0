/**
 * Contract §9, history: the versions of a silo, one version's data, and restoring it. Each
 * handler runs auth (+ rate limit) → validation → service, as the management API does.
 */
import type { Context } from 'koa';
import type { ValidationIssue } from '../errors.js';
import { listQuery, versionPath, type ListQuery } from '../schemas/params.js';
import { validator } from '../schemas/validate.js';
import type { SiloService } from '../service/types.js';
import type { Auth } from './auth.js';
import { PreconditionRequiredError } from './errors.js';
import { hasIfMatch, ifMatchTags } from './etag.js';
import { lastParam, pathUuid, queryInt, sendUpdated, throwIfAny } from './manage.js';
import { sendJson, sendJsonText } from './respond.js';

const checkList = validator<ListQuery>(listQuery);
const checkVersion = validator<{ version: number }>(versionPath);

export interface VersionDeps {
  auth: Auth;
  silos: SiloService;
  requireIfMatch: boolean;
}

/** The path's version as a number, or its issues (a positive integer in canonical form). */
function pathVersion(param: string): { version: number; issues: ValidationIssue[] } {
  const value = /^[1-9][0-9]{0,15}$/.test(param) ? Number(param) : param;
  return { version: Number(value), issues: checkVersion.issues({ version: value }, 'path') };
}

export function versionHandlers(deps: VersionDeps) {
  const { auth, silos } = deps;

  return {
    async list(ctx: Context, param: string): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      const { uuid, issues } = pathUuid(param);
      const params = new URLSearchParams(ctx.querystring);
      const raw: Record<string, unknown> = {};
      for (const name of ['page', 'page_no', 'per_page'] as const) {
        const value = queryInt(lastParam(params, name));
        if (value !== undefined) raw[name] = value;
      }
      throwIfAny([...issues, ...checkList.issues(raw, 'query')]);
      const query = raw as ListQuery;
      sendJson(ctx, 200, await silos.versions(caller.account, uuid, query.page ?? query.page_no ?? 1, query.per_page ?? 25));
    },

    async get(ctx: Context, param: string, versionParam: string): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      const { uuid, issues } = pathUuid(param);
      const { version, issues: versionIssues } = pathVersion(versionParam);
      throwIfAny([...issues, ...versionIssues]);
      const { info, text } = await silos.version(caller.account, uuid, version);
      const head = JSON.stringify({ version: info.version, updated_at: info.updated_at });
      sendJsonText(ctx, 200, `${head.slice(0, -1)},"data":${text}}`);
    },

    async restore(ctx: Context, param: string, versionParam: string): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      const { uuid, issues } = pathUuid(param);
      const { version, issues: versionIssues } = pathVersion(versionParam);
      throwIfAny([...issues, ...versionIssues]);
      if (deps.requireIfMatch && !hasIfMatch(ctx)) throw new PreconditionRequiredError();
      sendUpdated(ctx, await silos.restore(caller.account, uuid, version, ifMatchTags(ctx)));
    },
  };
}

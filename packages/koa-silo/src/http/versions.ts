/**
 * Contract §9, history: the versions of a silo, one version's data, and restoring it. Each
 * handler runs auth (+ rate limit) → validation → service, as the management API does.
 */
import type { Context } from 'koa';
import type { ValidationIssue } from '../model/index.js';
import { integerParam, listQuery, versionPath, type ListQuery } from '../schemas/params.js';
import { validator } from '../schemas/validate.js';
import type { SiloService } from '../service/types.js';
import type { Auth } from './auth.js';
import { PreconditionRequiredError } from './errors.js';
import { hasIfMatch, writePreconditions } from './etag.js';
import { pagingParams, pathUuid, sendUpdated, throwIfAny } from './manage.js';
import { loadCharged, type Admission } from '../limits/admission.js';
import { sendJson, sendJsonBytes } from './respond.js';
import type { VersionCache } from '../limits/version-cache.js';
import { textBytes } from '../limits/text-bytes.js';

const checkList = validator<ListQuery>(listQuery);
const checkVersion = validator<{ version: number }>(versionPath);

export interface VersionDeps {
  auth: Auth;
  silos: SiloService;
  requireIfMatch: boolean;
  /** Encoded version bodies, under `version:<uuid>:<n>` (a version's data never changes). */
  bodies: VersionCache<Buffer>;
  /** Where a version's text and bytes are charged while they are made. */
  admission: Admission;
}

/** The path's version as a number, or its issues (integerParam: one reading of integers everywhere). */
function pathVersion(param: string): { version: number; issues: ValidationIssue[] } {
  const value = integerParam(param);
  return { version: Number(value), issues: checkVersion.issues({ version: value }, 'path') };
}

export function versionHandlers(deps: VersionDeps) {
  const { auth, silos } = deps;

  return {
    async list(ctx: Context, param: string): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      const { uuid, issues } = pathUuid(param);
      const params = new URLSearchParams(ctx.querystring);
      const raw = pagingParams(params);
      throwIfAny([...issues, ...checkList.issues(raw, 'query')]);
      const query = raw as ListQuery;
      sendJson(ctx, 200, await silos.versions(caller.account, uuid, query.page ?? query.page_no ?? 1, query.per_page ?? 25));
    },

    async get(ctx: Context, param: string, versionParam: string): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      const { uuid, issues } = pathUuid(param);
      const { version, issues: versionIssues } = pathVersion(versionParam);
      throwIfAny([...issues, ...versionIssues]);
      const { info, load } = await silos.openVersion(caller.account, uuid, version);
      // Concurrent reads of one version share one load and one encoding, charged before the read.
      const body = await deps.bodies.load(`version:${uuid}:${info.version}`, String(info.version), caller.account, () =>
        loadCharged(deps.admission.texts, 3 * info.size, async () => {
          const head = JSON.stringify({ version: info.version, updated_at: info.updated_at });
          const bytes = await textBytes(`${head.slice(0, -1)},"data":`, await load(), '}');
          return { version: String(info.version), value: bytes, bytes: bytes.length };
        }),
      );
      sendJsonBytes(ctx, 200, body.value);
    },

    async restore(ctx: Context, param: string, versionParam: string): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      const { uuid, issues } = pathUuid(param);
      const { version, issues: versionIssues } = pathVersion(versionParam);
      throwIfAny([...issues, ...versionIssues]);
      if (deps.requireIfMatch && !hasIfMatch(ctx)) throw new PreconditionRequiredError();
      await sendUpdated(ctx, await silos.restore(caller.account, uuid, version, writePreconditions(ctx), caller));
    },
  };
}

/**
 * Contract §4, the management API: create, list, meta, get-silo, update, delete. Each handler runs
 * auth (+ rate limit) → body → validation → service, and writes the contract's status and body.
 */
import type { Context } from 'koa';
import { ValidationError, type ValidationIssue } from '../errors.js';
import { BODY_ENVELOPE_BYTES, type Plan } from '../options.js';
import { listQuery, uuidPath, type ListQuery, type UuidPath } from '../schemas/params.js';
import { createSiloBody, updateSiloBody, BODY_FIELDS, type CreateSiloBody, type UpdateSiloBody } from '../schemas/silo.js';
import type { SiloMeta, SiloRecord, SiloService, UpdateSiloInput } from '../service/types.js';
import type { Auth } from './auth.js';
import { readJsonBody } from './body.js';
import { PreconditionRequiredError } from './errors.js';
import { answeredNotModified, etagFor, hasIfMatch, ifMatchVersion, notModified } from './etag.js';
import { sendEmpty, sendJson, sendJsonBytes, sendJsonText } from './respond.js';
import { validator } from './validate.js';
import type { VersionCache } from './version-cache.js';

const checkCreate = validator<CreateSiloBody>(createSiloBody);
const checkUpdate = validator<UpdateSiloBody>(updateSiloBody);
const checkPath = validator<UuidPath>(uuidPath);
const checkList = validator<ListQuery>(listQuery);

export interface ManageDeps {
  auth: Auth;
  silos: SiloService;
  requireIfMatch: boolean;
  maxJsonDepth: number;
  /** Encoded get-silo bodies, under `data:<uuid>` (shared with data reads' raw bodies). */
  bodies: VersionCache<Buffer>;
}

/** The six metadata fields, in the contract's order, and nothing else. */
export function metaOf(r: SiloMeta): SiloMeta {
  return {
    file_name: r.file_name,
    file_uuid: r.file_uuid,
    created_at: r.created_at,
    updated_at: r.updated_at,
    is_public: r.is_public,
    region_name: r.region_name,
  };
}

function bodyLimit(plan: Plan) {
  return { bodyBytes: plan.maxDataBytes + BODY_ENVELOPE_BYTES, planBytes: plan.maxDataBytes };
}

/** The path's file_uuid in lower case, or its issues. */
function pathUuid(param: string): { uuid: string; issues: ValidationIssue[] } {
  return { uuid: param.toLowerCase(), issues: checkPath.issues({ file_uuid: param }, 'path') };
}

function throwIfAny(issues: ValidationIssue[]): void {
  if (issues.length > 0) throw new ValidationError(issues);
}

/** Only the known fields, so unknown ones never reach the service. */
function pick<T extends object>(body: T, fields: readonly string[]): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    if (Object.hasOwn(body, field)) out[field] = (body as Record<string, unknown>)[field];
  }
  return out as Partial<T>;
}

function lastParam(params: URLSearchParams, name: string): string | undefined {
  return params.getAll(name).at(-1);
}

function queryInt(value: string | undefined): number | string | undefined {
  if (value === undefined) return undefined;
  return /^\s*[+-]?\d{1,15}\s*$/.test(value) ? Number(value) : value;
}

export function manageHandlers(deps: ManageDeps) {
  const { auth, silos, bodies } = deps;

  const sendRecord = (ctx: Context, status: number, record: SiloRecord) => {
    ctx.set('ETag', etagFor(record.version));
    sendJson(ctx, status, metaOf(record));
  };

  const requireIfMatch = (ctx: Context) => {
    if (deps.requireIfMatch && !hasIfMatch(ctx)) throw new PreconditionRequiredError();
  };

  return {
    async create(ctx: Context): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      const body = await readJsonBody(ctx, bodyLimit(caller.plan), deps.maxJsonDepth);
      const input = checkCreate(body, 'body');
      const record = await silos.create(caller.account, pick(input, BODY_FIELDS) as CreateSiloBody);
      ctx.set('Location', `/api/v1/manage/meta/${record.file_uuid}`);
      sendRecord(ctx, 201, record);
    },

    async list(ctx: Context): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      const params = new URLSearchParams(ctx.querystring);
      const raw: Record<string, unknown> = {};
      for (const name of ['page', 'page_no', 'per_page'] as const) {
        const value = queryInt(lastParam(params, name));
        if (value !== undefined) raw[name] = value;
      }
      const query = checkList(raw, 'query');
      const page = await silos.list(caller.account, query.page ?? query.page_no ?? 1, query.per_page ?? 25);
      sendJson(ctx, 200, { metadata: page.metadata, silos: page.silos.map(metaOf) });
    },

    async meta(ctx: Context, param: string): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      const { uuid, issues } = pathUuid(param);
      throwIfAny(issues);
      const record = await silos.meta(caller.account, uuid);
      const etag = etagFor(record.version);
      ctx.set('ETag', etag);
      if (notModified(ctx, etag)) return sendEmpty(ctx, 304);
      sendJson(ctx, 200, metaOf(record));
    },

    async get(ctx: Context, param: string): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      const { uuid, issues } = pathUuid(param);
      throwIfAny(issues);
      const handle = await silos.open(caller.account, uuid);
      const { version } = handle.record;
      // The client holds the current version: no data to read.
      if (answeredNotModified(ctx, etagFor(version))) return;
      // The stored text goes out as it is (no parse, no re-serialization), encoded once per version
      // and shared by every response (see version-cache.ts); the loader checks the reader's account.
      const body = await bodies.load(`data:${handle.record.file_uuid}`, version, caller.account, async () => {
        const data = await handle.load();
        const bytes = Buffer.from(`{"data":${data.text}}`, 'utf8');
        return { version: data.record.version, value: bytes, bytes: bytes.length };
      });
      if (body.version !== version && answeredNotModified(ctx, etagFor(body.version))) return;
      sendJsonBytes(ctx, 200, body.value);
    },

    async update(ctx: Context, param: string): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      const { uuid, issues } = pathUuid(param);
      const body = await readJsonBody(ctx, bodyLimit(caller.plan), deps.maxJsonDepth);
      throwIfAny([...issues, ...checkUpdate.issues(body, 'body')]);
      requireIfMatch(ctx);
      const input = pick(body as UpdateSiloBody, BODY_FIELDS) as UpdateSiloInput;
      const ifMatch = await ifMatchVersion(ctx, async () => (await silos.meta(caller.account, uuid)).version);
      const { record, text } = await silos.update(caller.account, uuid, input, ifMatch);
      ctx.set('ETag', etagFor(record.version));
      const head = JSON.stringify({
        file_name: record.file_name,
        file_uuid: record.file_uuid,
        region_name: record.region_name,
        is_public: record.is_public,
      });
      const tail = JSON.stringify({ created_at: record.created_at, updated_at: record.updated_at });
      sendJsonText(ctx, 200, `${head.slice(0, -1)},"file_data":${text},${tail.slice(1)}`);
    },

    async delete(ctx: Context, param: string): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      const { uuid, issues } = pathUuid(param);
      throwIfAny(issues);
      requireIfMatch(ctx);
      const ifMatch = await ifMatchVersion(ctx, async () => (await silos.meta(caller.account, uuid)).version);
      await silos.delete(caller.account, uuid, ifMatch);
      sendJson(ctx, 200, { file_uuid: uuid, deleted: true });
    },
  };
}

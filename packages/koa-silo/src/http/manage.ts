/**
 * Contract §4, the management API: create, list, meta, get-silo, update, delete. Each handler runs
 * auth (+ rate limit) → body → validation → service, and writes the contract's status and body.
 */
import type { Context } from 'koa';
import { ValidationError, type ValidationIssue } from '../errors.js';
import { BODY_ENVELOPE_BYTES, type Plan } from '../options.js';
import { listQuery, uuidPath, type ListQuery, type UuidPath } from '../schemas/params.js';
import { createSiloBody, updateSiloBody, BODY_FIELDS, type CreateSiloBody, type UpdateSiloBody } from '../schemas/silo.js';
import { isPlainObject, validator } from '../schemas/validate.js';
import type { SiloDataRecord, SiloFields, SiloMeta, SiloRecord, SiloService } from '../service/types.js';
import type { Auth } from './auth.js';
import { loadCharged, type Admission } from './admission.js';
import { readJson, type BodyLimit } from './body.js';
import { PreconditionRequiredError } from './errors.js';
import { answeredNotModified, etagFor, hasIfMatch, ifMatchTags, notModified } from './etag.js';
import { memberText } from './json-member.js';
import { readPatch } from './patch-body.js';
import { sendEmpty, sendJson, sendJsonBytes, sendJsonText } from './respond.js';
import type { VersionCache } from './version-cache.js';

const checkCreate = validator<CreateSiloBody>(createSiloBody, { file_data: isPlainObject });
const checkUpdate = validator<UpdateSiloBody>(updateSiloBody, { file_data: isPlainObject });
const checkPath = validator<UuidPath>(uuidPath);
const checkList = validator<ListQuery>(listQuery);

export interface ManageDeps {
  auth: Auth;
  silos: SiloService;
  requireIfMatch: boolean;
  maxJsonDepth: number;
  /** Encoded get-silo bodies, under `data:<uuid>` (shared with data reads' raw bodies). */
  bodies: VersionCache<Buffer>;
  /** Where request bodies are charged while they are read and parsed (admission.ts). */
  admission?: Admission;
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

/** The metadata fields and the version (contract §9), as create and meta answer. */
export function versionedMetaOf(r: SiloMeta & { version: number }): SiloMeta & { version: number } {
  return { ...metaOf(r), version: r.version };
}

/** The update response: all seven fields and the version, with file_data's stored text as it is. */
export function sendUpdated(ctx: Context, { record, text }: SiloDataRecord): void {
  ctx.set('ETag', etagFor(record.etag));
  const head = JSON.stringify({
    file_name: record.file_name,
    file_uuid: record.file_uuid,
    region_name: record.region_name,
    is_public: record.is_public,
  });
  const tail = JSON.stringify({ created_at: record.created_at, updated_at: record.updated_at, version: record.version });
  sendJsonText(ctx, 200, `${head.slice(0, -1)},"file_data":${text},${tail.slice(1)}`);
}

export function bodyLimit(plan: Plan, admission?: Admission): BodyLimit {
  return { bodyBytes: plan.maxDataBytes + BODY_ENVELOPE_BYTES, planBytes: plan.maxDataBytes, ...(admission ? { admission } : {}) };
}

/** The path's file_uuid in lower case, or its issues. */
export function pathUuid(param: string): { uuid: string; issues: ValidationIssue[] } {
  return { uuid: param.toLowerCase(), issues: checkPath.issues({ file_uuid: param }, 'path') };
}

export function throwIfAny(issues: ValidationIssue[]): void {
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

export function lastParam(params: URLSearchParams, name: string): string | undefined {
  return params.getAll(name).at(-1);
}

export function queryInt(value: string | undefined): number | string | undefined {
  if (value === undefined) return undefined;
  return /^\s*[+-]?\d{1,15}\s*$/.test(value) ? Number(value) : value;
}

/** Every body field but file_data, whose text is taken from the body as sent. */
const FIELDS = BODY_FIELDS.filter((f) => f !== 'file_data');

/**
 * file_data's text exactly as the client sent it (numbers as written, whitespace removed); a body
 * already parsed by an app's own body parser only has its value left.
 */
function dataText(bodyText: string, value: unknown): string {
  return memberText(bodyText, 'file_data') ?? JSON.stringify(value);
}

export function manageHandlers(deps: ManageDeps) {
  const { auth, silos, bodies } = deps;

  const sendRecord = (ctx: Context, status: number, record: SiloRecord) => {
    ctx.set('ETag', etagFor(record.etag));
    sendJson(ctx, status, versionedMetaOf(record));
  };

  const requireIfMatch = (ctx: Context) => {
    if (deps.requireIfMatch && !hasIfMatch(ctx)) throw new PreconditionRequiredError();
  };

  return {
    async create(ctx: Context): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      const body = await readJson(ctx, bodyLimit(caller.plan, deps.admission), deps.maxJsonDepth);
      const input = checkCreate(body.value, 'body');
      const fields = pick(input, FIELDS) as SiloFields;
      await caller.confirm();
      const record = await silos.createText(caller.account, fields, dataText(body.text, input.file_data));
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
      sendJson(ctx, 200, { metadata: page.metadata, silos: page.silos.map(versionedMetaOf) });
    },

    async meta(ctx: Context, param: string): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      const { uuid, issues } = pathUuid(param);
      throwIfAny(issues);
      const record = await silos.meta(caller.account, uuid);
      const etag = etagFor(record.etag);
      ctx.set('ETag', etag);
      if (notModified(ctx, etag)) return sendEmpty(ctx, 304);
      sendJson(ctx, 200, versionedMetaOf(record));
    },

    async get(ctx: Context, param: string): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      const { uuid, issues } = pathUuid(param);
      throwIfAny(issues);
      const handle = await silos.open(caller.account, uuid);
      const { etag } = handle.record;
      // The client holds the current version: no data to read.
      if (answeredNotModified(ctx, etagFor(etag))) return;
      // The stored text goes out as it is (no parse, no re-serialization), encoded once per version
      // and shared by every response (see version-cache.ts); the loader checks the reader's account.
      const load = async () => {
        const data = await handle.load();
        const bytes = Buffer.from(`{"data":${data.text}}`, 'utf8');
        return { version: data.record.etag, value: bytes, bytes: bytes.length };
      };
      // The text, then its bytes, charged to the memory budget while they are made.
      const charged = () => (deps.admission ? loadCharged(deps.admission.texts, 2 * handle.record.size, load) : load());
      const body = await bodies.load(`data:${handle.record.file_uuid}`, etag, caller.account, charged);
      if (body.version !== etag && answeredNotModified(ctx, etagFor(body.version))) return;
      sendJsonBytes(ctx, 200, body.value);
    },

    /** PATCH: by Content-Type, a merge patch, a JSON Patch, or the contract's update body. */
    async update(ctx: Context, param: string): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      const { uuid, issues } = pathUuid(param);
      const patch = await readPatch(ctx, bodyLimit(caller.plan, deps.admission), deps.maxJsonDepth);
      if (patch) {
        throwIfAny([...issues, ...patch.issues]);
        requireIfMatch(ctx);
        await caller.confirm();
        return sendUpdated(ctx, await silos.patch(caller.account, uuid, patch.patch, ifMatchTags(ctx)));
      }
      const body = await readJson(ctx, bodyLimit(caller.plan, deps.admission), deps.maxJsonDepth);
      throwIfAny([...issues, ...checkUpdate.issues(body.value, 'body')]);
      requireIfMatch(ctx);
      const input = body.value as UpdateSiloBody;
      const text = input.file_data === undefined ? undefined : dataText(body.text, input.file_data);
      const fields = pick(input, FIELDS) as Partial<SiloFields>;
      await caller.confirm();
      sendUpdated(ctx, await silos.updateText(caller.account, uuid, fields, text, ifMatchTags(ctx)));
    },

    async delete(ctx: Context, param: string): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      const { uuid, issues } = pathUuid(param);
      throwIfAny(issues);
      requireIfMatch(ctx);
      await silos.delete(caller.account, uuid, ifMatchTags(ctx));
      sendJson(ctx, 200, { file_uuid: uuid, deleted: true });
    },
  };
}

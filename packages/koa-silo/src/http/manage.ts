/**
 * Contract §4, the management API: create, list, meta, get-silo, update, delete. Each handler runs
 * auth (+ rate limit) → body → validation → service, and writes the contract's status and body.
 */
import type { Context } from 'koa';
import { metaOf, type Plan, type SiloDataRecord, type SiloFields, type SiloMeta, type SiloRecord, ValidationError, type ValidationIssue, versionedMetaOf } from '../model/index.js';
import { BODY_ENVELOPE_BYTES } from '../options.js';
import { integerParam, listQuery, uuidPath, type ListQuery, type UuidPath } from '../schemas/params.js';
import { validator } from '../schemas/validate.js';
import type { SiloService } from '../service/types.js';
import type { Auth } from './auth.js';
import { loadCharged, type Admission } from '../limits/admission.js';
import { readText, type BodyLimit } from './body.js';
import { PreconditionRequiredError } from './errors.js';
import { answeredNotModified, etagFor, hasIfMatch, writePreconditions, notModified } from './etag.js';
import { patchShape } from './patch-body.js';
import { textBytes } from '../limits/text-bytes.js';
import { answerOnly } from './compression.js';
import { applyMinimal, prefersMinimal } from './prefer.js';
import type { Work } from '../work/index.js';
import { sendEmpty, sendJson, sendJsonBytes, sendJsonText } from './respond.js';
import type { VersionCache } from '../limits/version-cache.js';

const checkPath = validator<UuidPath>(uuidPath);
const checkList = validator<ListQuery>(listQuery);

export interface ManageDeps {
  auth: Auth;
  silos: SiloService;
  requireIfMatch: boolean;
  maxJsonDepth: number;
  maxPatchOperations: number;
  /** Where bodies are parsed and checked (on a worker thread when large). */
  work: Work;
  /** Encoded get-silo bodies, under `data:<uuid>` (shared with data reads' raw bodies). */
  bodies: VersionCache<Buffer>;
  /** Where request bodies are charged while they are read and parsed (admission.ts). */
  admission?: Admission;
}

/** The update response: all seven fields and the version, with file_data's stored text as it is. */
export async function sendUpdated(ctx: Context, { record, text }: SiloDataRecord): Promise<void> {
  if (prefersMinimal(ctx)) return sendMinimal(ctx, record);
  ctx.set('ETag', etagFor(record.etag));
  const head = JSON.stringify({
    file_name: record.file_name,
    file_uuid: record.file_uuid,
    region_name: record.region_name,
    is_public: record.is_public,
  });
  const tail = JSON.stringify({ created_at: record.created_at, updated_at: record.updated_at, version: record.version });
  // A large document's bytes are made in slices, with other requests served between them.
  sendJsonBytes(ctx, 200, answerOnly(await textBytes(`${head.slice(0, -1)},"file_data":`, text, `,${tail.slice(1)}`)));
}

/** A write's minimal answer (Prefer: return=minimal): the metadata, version and ETag. */
function sendMinimal(ctx: Context, record: SiloRecord): void {
  ctx.set('ETag', etagFor(record.etag));
  applyMinimal(ctx);
  sendJson(ctx, 200, versionedMetaOf(record));
}

export function bodyLimit(plan: Plan, admission?: Admission, account?: string): BodyLimit {
  return {
    bodyBytes: plan.maxDataBytes + BODY_ENVELOPE_BYTES,
    planBytes: plan.maxDataBytes,
    ...(admission ? { admission } : {}),
    ...(account !== undefined ? { holder: account } : {}),
  };
}

/** The path's file_uuid in lower case, or its issues. */
export function pathUuid(param: string): { uuid: string; issues: ValidationIssue[] } {
  return { uuid: param.toLowerCase(), issues: checkPath.issues({ file_uuid: param }, 'path') };
}

export function throwIfAny(issues: ValidationIssue[]): void {
  if (issues.length > 0) throw new ValidationError(issues);
}

/**
 * A query parameter given at most once (undefined when absent); given more often, a 422
 * `multiple_values`, as the data queries and the event streams answer (`page=1&page=2` was read
 * as page 2).
 */
export function onlyParam(params: URLSearchParams, name: string): string | undefined {
  const all = params.getAll(name);
  if (all.length > 1) {
    throw new ValidationError([{ loc: ['query', name], msg: `Give ${name} at most once (it was given ${all.length} times)`, type: 'multiple_values' }]);
  }
  return all[0];
}

/** A query parameter as the schemas read an integer (integerParam), or undefined when absent. */
export function queryInt(value: string | undefined): number | string | undefined {
  return value === undefined ? undefined : integerParam(value);
}

/** A listing's paging parameters as given (page, page_no, per_page; each at most once), unvalidated. */
export function pagingParams(params: URLSearchParams): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  for (const name of ['page', 'page_no', 'per_page'] as const) {
    const value = queryInt(onlyParam(params, name));
    if (value !== undefined) raw[name] = value;
  }
  return raw;
}

export function manageHandlers(deps: ManageDeps) {
  const { auth, silos, bodies, work } = deps;

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
      const text = await readText(ctx, bodyLimit(caller.plan, deps.admission, caller.account));
      const body = await work.checkBody(caller.account, 'create', text, deps.maxJsonDepth, deps.maxPatchOperations);
      throwIfAny(body.issues);
      await caller.confirm();
      const record = await silos.createText(caller.account, body.fields as unknown as SiloFields, body.dataText!, caller);
      ctx.set('Location', `/api/v1/manage/meta/${record.file_uuid}`);
      // A create's answer never carries file_data: the preference is met as it is.
      if (prefersMinimal(ctx)) applyMinimal(ctx);
      sendRecord(ctx, 201, record);
    },

    async list(ctx: Context): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      const params = new URLSearchParams(ctx.querystring);
      const raw = pagingParams(params);
      const query = checkList(raw, 'query');
      const page = await silos.list(caller.account, query.page ?? query.page_no ?? 1, query.per_page ?? 25);
      sendJson(ctx, 200, { metadata: page.metadata, silos: page.silos.map((s) => ({ ...versionedMetaOf(s), size: s.size })) });
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
        const bytes = await textBytes('{"data":', data.text, '}');
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
      const shape = patchShape(ctx);
      const text = await readText(ctx, bodyLimit(caller.plan, deps.admission, caller.account));
      const body = await work.checkBody(caller.account, shape, text, deps.maxJsonDepth, deps.maxPatchOperations, issues.length === 0 ? uuid : undefined);
      throwIfAny([...issues, ...body.issues]);
      requireIfMatch(ctx);
      await caller.confirm();
      if (shape !== 'update') {
        const patch = { type: shape === 'merge-patch' ? 'merge' : 'json-patch', text, ...(body.kept ? { kept: body.kept } : {}) } as const;
        // Without the document in the answer, an append to a large array reads none of its data.
        if (prefersMinimal(ctx)) return sendMinimal(ctx, await silos.patchRecord(caller.account, uuid, patch, writePreconditions(ctx), caller));
        return sendUpdated(ctx, await silos.patch(caller.account, uuid, patch, writePreconditions(ctx), caller));
      }
      const fields = body.fields as Partial<SiloFields>;
      await sendUpdated(ctx, await silos.updateText(caller.account, uuid, fields, body.dataText, writePreconditions(ctx), caller));
    },

    async delete(ctx: Context, param: string): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      const { uuid, issues } = pathUuid(param);
      throwIfAny(issues);
      requireIfMatch(ctx);
      await silos.delete(caller.account, uuid, writePreconditions(ctx), caller);
      sendJson(ctx, 200, { file_uuid: uuid, deleted: true });
    },
  };
}

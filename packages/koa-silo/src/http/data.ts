/**
 * Contract §5, data access: `/<file_uuid>` with an access key and `/public/<file_uuid>`, on the
 * silo's region host only. Without parameters the stored text is sent as it is; with parameters
 * silo-query runs over the parsed data (parsed once per version, see parsed-cache.ts).
 */
import type { Context } from 'koa';
import { compile, hasQueryParams, toJSON } from 'silo-query';
import { BadRequestError } from '../errors.js';
import type { SiloDataRecord, SiloService } from '../service/types.js';
import type { Auth } from './auth.js';
import { allowAnyOrigin } from './cors.js';
import { etagFor, notModified } from './etag.js';
import type { ParsedCache } from './parsed-cache.js';
import type { RegionOf } from './region.js';
import { sendEmpty, sendJsonText } from './respond.js';

export interface DataDeps {
  auth: Auth;
  silos: SiloService;
  regionOf: RegionOf;
  parsed: ParsedCache;
  publicQueries: boolean;
}

type Compiled = (data: unknown) => unknown;

const COMPILED_MAX = 500;

export function dataHandlers(deps: DataDeps) {
  const { auth, silos, regionOf, parsed } = deps;
  // Compiled queries by query string; only successful compiles are kept.
  const compiled = new Map<string, Compiled>();

  const compileCached = (search: string): Compiled => {
    let fn = compiled.get(search);
    if (!fn) {
      fn = compile(new URLSearchParams(search)) as Compiled;
      if (compiled.size >= COMPILED_MAX) compiled.delete(compiled.keys().next().value!);
      compiled.set(search, fn);
    }
    return fn;
  };

  /** Parameters are validated before storage is read: a bad query is a 422 whether or not the silo exists. */
  const plan = (ctx: Context): { search: string; query?: Compiled } => {
    const search = ctx.querystring;
    if (search === '' || !hasQueryParams(new URLSearchParams(search))) return { search };
    return { search, query: compileCached(search) };
  };

  const respond = (ctx: Context, data: SiloDataRecord, search: string, query?: Compiled): void => {
    const { record, text } = data;
    const etag = etagFor(record.version, query ? search : undefined);
    ctx.set('ETag', etag);
    if (notModified(ctx, etag)) return sendEmpty(ctx, 304);
    if (!query) return sendJsonText(ctx, 200, text);
    const value = parsed.get(record.file_uuid, record.version, text);
    sendJsonText(ctx, 200, toJSON(query(value)) ?? 'null');
  };

  return {
    /** GET /<file_uuid> with X-SILO-KEY: the key's account's silos (private, and public ones too). */
    async privateRead(ctx: Context, param: string): Promise<void> {
      const caller = await auth.require(ctx, 'access');
      const { search, query } = plan(ctx);
      const data = await silos.readData(regionOf(ctx), param.toLowerCase(), caller.account);
      respond(ctx, data, search, query);
    },

    /** GET /public/<file_uuid>: public silos, no credentials, no parameters unless publicQueries. */
    async publicRead(ctx: Context, param: string): Promise<void> {
      allowAnyOrigin(ctx);
      await auth.anonymous(ctx);
      if (!deps.publicQueries && ctx.querystring !== '' && hasQueryParams(new URLSearchParams(ctx.querystring))) {
        throw new BadRequestError(
          'Query and search parameters need the private address /<file_uuid> with an access key in X-SILO-KEY',
        );
      }
      const { search, query } = plan(ctx);
      const data = await silos.readData(regionOf(ctx), param.toLowerCase(), undefined);
      respond(ctx, data, search, query);
    },
  };
}

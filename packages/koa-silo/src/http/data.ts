/**
 * Contract §5, data access: `/<file_uuid>` with an access key and `/public/<file_uuid>`, on the
 * silo's region host only. Without parameters the stored text is sent as it is (as bytes encoded
 * once per version and shared by every response); with parameters silo-query runs over the
 * parsed data (parsed once per version), and its answer is encoded once per version and query
 * string (50 clients polling one search cost one run). The caches are version caches (version-cache.ts): the
 * silo's metadata is read on every request, and the data record only when the cache does not hold
 * that version. A data record loaded, and a value parsed, are charged to the memory budget
 * (admission.ts) while the loader works: the text by the silo's size before it is read, the value
 * by its estimated heap (heap-estimate.ts) before it is parsed; the cache charges that estimate too.
 */
import type { Context } from 'koa';
import { compile, hasQueryParams, parseJson, type CompiledQuery } from 'silo-query';
import { BadRequestError, NotFoundError, type SiloHandle } from '../model/index.js';
import type { SiloService } from '../service/types.js';
import { loadCharged, releaseAfterUse, type Admission } from '../limits/admission.js';
import { BoundedMap } from '../limits/bounded-map.js';
import { reaches, type Auth } from './auth.js';
import { allowAnyOrigin } from './cors.js';
import { answeredNotModified, etagFor, queryTag } from './etag.js';
import { estimateParsedBytes, WORST_BYTES_PER_CHAR } from '../limits/heap-estimate.js';
import type { RegionOf } from './region.js';
import { sendJsonBytes } from './respond.js';
import { textBytes } from '../limits/text-bytes.js';
import type { Loaded, VersionCache } from '../limits/version-cache.js';
import type { Work } from '../work/index.js';

export interface DataDeps {
  auth: Auth;
  silos: SiloService;
  regionOf: RegionOf;
  /** Parsed data, for reads with parameters. */
  parsed: VersionCache<unknown>;
  /** Encoded response bodies (shared with get-silo, under other keys). */
  bodies: VersionCache<Buffer>;
  /** Encoded query answers, under `<uuid>\n<query string>`. */
  answers: VersionCache<EncodedAnswer>;
  admission: Admission;
  /** Queries over large silos run there (work/). */
  work: Work;
  publicQueries: boolean;
}

/** A query's answer as sent: its JSON bytes and, for a list query, the matches before offset and limit. */
export interface EncodedAnswer {
  bytes: Buffer;
  total?: number;
}

/** What a query string asks for: nothing (the stored data), or a compiled query, its text and its ETag part. */
interface QueryPlan {
  query?: CompiledQuery;
  search?: string;
  tag?: string;
}

const NO_QUERY: QueryPlan = {};
const PLANS_MAX = 500;

export function dataHandlers(deps: DataDeps) {
  const { auth, silos, regionOf, parsed, bodies, answers, admission, work } = deps;
  // Query plans by query string; only successful compiles are kept.
  const plans = new BoundedMap<string, QueryPlan>(PLANS_MAX);

  /** Parameters are validated before storage is read: a bad query is a 422 whether or not the silo exists. */
  const planOf = (search: string): QueryPlan => {
    if (search === '') return NO_QUERY;
    let plan = plans.get(search);
    if (!plan) {
      const params = new URLSearchParams(search);
      plan = hasQueryParams(params) ? { query: compile(params), search, tag: queryTag(search) } : NO_QUERY;
      plans.set(search, plan);
    }
    return plan;
  };

  const respond = async (ctx: Context, param: string, account: string | undefined, plan: QueryPlan): Promise<void> => {
    const region = regionOf(ctx);
    const handle: SiloHandle = await silos.openData(region, param.toLowerCase(), account);
    const { file_uuid: uuid, etag } = handle.record;
    // The client holds the current version: no data to read.
    if (answeredNotModified(ctx, etagFor(etag, plan.tag))) return;
    // Who may share one data read: the loader checks the data record for this region and reader.
    const scope = `${region} ${account ?? '*'}`;
    if (!plan.query) {
      // The text, then its bytes.
      const body = await bodies.load(uuid, etag, scope, () =>
        loadCharged(admission.texts, 2 * handle.record.size, async () => {
          const data = await handle.load();
          const bytes = await textBytes(data.text);
          return { version: data.record.etag, value: bytes, bytes: bytes.length };
        }),
      );
      if (body.version !== etag && answeredNotModified(ctx, etagFor(body.version))) return;
      return sendJsonBytes(ctx, 200, body.value);
    }
    // A query's answer is made once per version and query, and shared by concurrent and later reads.
    const key = `${uuid}\n${plan.search!}`;
    const answer = await answers.load(key, etag, scope, () => answerOf(handle, plan.query!, plan.search!, scope, 2 * key.length));
    if (answer.version !== etag && answeredNotModified(ctx, etagFor(answer.version, plan.tag))) return;
    const { bytes, total } = answer.value;
    if (plan.query.reportsTotal && total !== undefined) ctx.set('X-Total-Count', String(total));
    sendJsonBytes(ctx, 200, bytes);
  };

  /** The answer of `query` over the silo's data, and the memory it holds (`keyBytes`: its cache key's). */
  const answerOf = async (handle: SiloHandle, query: CompiledQuery, search: string, scope: string, keyBytes: number): Promise<Loaded<EncodedAnswer>> => {
    const { file_uuid: uuid, etag, size, account } = handle.record;
    if (!work.inline(size)) {
      // A large silo: parsed, queried and serialised on its worker, in its owner's turn.
      const load = async () => {
        const data = await handle.load();
        return { text: data.text, etag: data.record.etag };
      };
      const { bytes, total, etag: version } = await work.query(account, uuid, etag, size, search, load);
      return { version, value: total === undefined ? { bytes } : { bytes, total }, bytes: bytes.length + keyBytes };
    }
    const value = await parsed.load(uuid, etag, scope, async () => {
      // The text and its value, for the worst shape until the text is there to estimate from:
      // one reservation taken before loading, so a read never holds a text while it waits.
      const reservation = await admission.parses.take(size + WORST_BYTES_PER_CHAR * size);
      try {
        const data = await handle.load();
        const bytes = estimateParsedBytes(data.text);
        reservation.shrinkTo(size + bytes);
        // Small data (work/ takes the large): parsed here, in well under a millisecond.
        const value = parseJson(data.text);
        return { version: data.record.etag, value, bytes };
      } finally {
        releaseAfterUse(reservation);
      }
    });
    const result = query.json(value.value);
    const bytes = await textBytes(result.text);
    const answer = result.total === undefined ? { bytes } : { bytes, total: result.total };
    return { version: value.version, value: answer, bytes: bytes.length + keyBytes };
  };

  return {
    /** GET /<file_uuid> with X-SILO-KEY: the key's account's silos (private, and public ones too). */
    async privateRead(ctx: Context, param: string): Promise<void> {
      const caller = await auth.require(ctx, 'access');
      const plan = planOf(ctx.querystring);
      // Outside a scoped key's silos: the same 404 as a silo of another account.
      if (!reaches(caller, param)) throw new NotFoundError();
      await respond(ctx, param, caller.account, plan);
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
      const plan = planOf(ctx.querystring);
      await respond(ctx, param, undefined, plan);
    },
  };
}

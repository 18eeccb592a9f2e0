/**
 * The API's rules for records that reach storage without it (`silo import`, `silo migrate`): what
 * an account, key, console user, webhook, silo and each kept version must be for Silo to serve them
 * as if its API had made them. Storage takes whatever it is given; without these checks an import
 * could plant a silo of text that is not JSON (then served as application/json), a uuid no path
 * can name, an account called `__proto__` or on a plan the server does not have, data that makes
 * queries fail. The rules are the API's own: the request schemas, the name rules, the plans and
 * the body depth bound of the options the server runs with.
 *
 * Each check says what is wrong, or undefined when the record is fine.
 */
import { resolveOptions, type SiloOptions } from '../options.js';
import { type Account, MAX_HISTORY_VERSIONS, MAX_KEY_SILOS, type Plan, planNamed, type StoredUser, type StoredWebhook, type ValidationIssue } from '../model/index.js';
import { accountNameProblem, keyNameProblem, userNameProblem } from '../schemas/names.js';
import { timestamp } from '../schemas/silo.js';
import { checkCreateBody } from '../schemas/silo-checks.js';
import { validator } from '../schemas/validate.js';
import { canonicalUuid } from '../service/silo-ids.js';
import type { ImportedSilo, ImportedVersion, StoredKey } from '../storage/index.js';
import { webhookUrlProblem } from '../webhooks/address-guard.js';

export interface RecordRules {
  account(account: Account): string | undefined;
  key(key: StoredKey): string | undefined;
  user(user: StoredUser): string | undefined;
  webhook(hook: StoredWebhook): string | undefined;
  /** A silo's head facts (its kept versions are checked one by one with `version`). */
  silo(silo: ImportedSilo): string | undefined;
  /** One kept version of a silo, whose account is on `plan` (an account `account` let through). */
  version(version: ImportedVersion, plan: string): string | undefined;
}

/** The rules of a server run with `options` (its plans and its JSON depth bound). */
export type RecordRuleOptions = Pick<SiloOptions, 'plans' | 'maxJsonDepth'>;

const checkTime = validator<string>(timestamp);

/** Webhook ids as the service makes them (`wh_` and base64url): they are path segments. */
const WEBHOOK_ID = /^wh_[A-Za-z0-9_-]{1,64}$/;
/** ETag tags as storage makes them (base64url): they go into ETag headers between quotes. */
const ETAG = /^[A-Za-z0-9_-]{1,64}$/;
/** A webhook's silo filter holds at most this many (the create body's maxItems). */
const MAX_WEBHOOK_SILOS = 100;

/** The first issue in words (`file_data.3: Input should be ...`), and how many more there are. */
function firstIssue(issues: ValidationIssue[]): string | undefined {
  const [first] = issues;
  if (!first) return undefined;
  const where = first.loc.slice(1).join('.');
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return `${where === '' ? '' : `${where}: `}${first.msg}${more}`;
}

function timeProblem(name: string, value: string): string | undefined {
  return checkTime.issues(value, 'body').length > 0 ? `${name} ${JSON.stringify(value)} is not an RFC 3339 time` : undefined;
}

/** Why `uuids` cannot be a list of silos (canonical uuids, each once, `min` to `max` of them). */
function uuidsProblem(what: string, uuids: readonly string[], min: number, max: number): string | undefined {
  if (uuids.length < min || uuids.length > max) return `${what} names ${uuids.length} silos, not ${min} to ${max}`;
  const odd = uuids.find((uuid) => canonicalUuid(uuid) !== uuid);
  if (odd !== undefined) return `${what} names ${JSON.stringify(odd)}, not a silo's file_uuid (a uuid in lower case)`;
  if (new Set(uuids).size !== uuids.length) return `${what} names a silo twice`;
  return undefined;
}

/** Whether `value` nests deeper than `limit` (arrays and objects; a scalar is depth 0). Iterative: any depth. */
function deeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

/** The four fields of a silo or version as the API's create body checks them (file_data apart). */
function fieldsProblem(fields: Pick<ImportedSilo, 'file_name' | 'region_name' | 'is_public'>, data: unknown): string | undefined {
  const { file_name, region_name, is_public } = fields;
  return firstIssue(checkCreateBody.issues({ file_name, region_name, is_public, file_data: data }, 'body'));
}

export function recordRules(options: RecordRuleOptions = {}): RecordRules {
  const resolved = resolveOptions(options);
  const plans: Record<string, Plan> = resolved.plans;
  // A body is an object around file_data: the API's bound on the body leaves file_data one level less.
  const maxDataDepth = resolved.maxJsonDepth - 1;

  return {
    account(account) {
      const badName = accountNameProblem(account.name);
      if (badName) return `account name ${JSON.stringify(account.name)}: ${badName}`;
      if (!Object.hasOwn(plans, account.plan)) {
        return `account ${JSON.stringify(account.name)} is on plan ${JSON.stringify(account.plan)}, which this server does not have (its plans: ${Object.keys(plans).join(', ')})`;
      }
      return timeProblem('created_at', account.created_at);
    },

    key(key) {
      const badName = keyNameProblem(key.name);
      if (badName) return `key name ${JSON.stringify(key.name)}: ${badName}`;
      if (key.type === 'access' && (key.duration === undefined) !== (key.expires_at === undefined)) {
        return 'an access key with a duration or expiry but not both (an access key has either both or neither)';
      }
      if (key.type === 'manage' && key.silos !== undefined) return 'a manage key scoped to silos (only access keys are)';
      if (key.silos !== undefined) {
        const badSilos = uuidsProblem('the key', key.silos, 1, MAX_KEY_SILOS);
        if (badSilos) return badSilos;
      }
      return timeProblem('created_at', key.created_at) ?? (typeof key.expires_at === 'string' ? timeProblem('expires_at', key.expires_at) : undefined);
    },

    user(user) {
      const badName = userNameProblem(user.name);
      if (badName) return `console user name ${JSON.stringify(user.name)}: ${badName}`;
      return timeProblem('created_at', user.created_at);
    },

    webhook(hook) {
      if (!WEBHOOK_ID.test(hook.id)) return `webhook id ${JSON.stringify(hook.id)} is not one Silo makes (wh_ and base64url)`;
      // Its form only: which addresses it may reach is the target's setting, checked at every delivery.
      const badUrl = webhookUrlProblem(hook.url, { allowPrivate: true });
      if (badUrl) return `webhook url: ${badUrl}`;
      if (hook.silos !== null) {
        const badSilos = uuidsProblem('the webhook', hook.silos, 0, MAX_WEBHOOK_SILOS);
        if (badSilos) return badSilos;
      }
      return timeProblem('created_at', hook.created_at) ?? (hook.failing_since === null ? undefined : timeProblem('failing_since', hook.failing_since));
    },

    silo(silo) {
      if (canonicalUuid(silo.file_uuid) !== silo.file_uuid) return `file_uuid ${JSON.stringify(silo.file_uuid)} is not a uuid in lower case (36 characters, 8-4-4-4-12)`;
      if (!ETAG.test(silo.etag)) return `etag ${JSON.stringify(silo.etag)} is not one Silo makes (base64url)`;
      const badTime = timeProblem('created_at', silo.created_at) ?? timeProblem('updated_at', silo.updated_at);
      if (badTime) return badTime;
      if (Date.parse(silo.updated_at) < Date.parse(silo.created_at)) return 'updated_at is before created_at';
      // An import holds a silo's history in memory until it is whole: no more than a store can keep.
      const kept = silo.version - silo.oldest + 1;
      if (kept > MAX_HISTORY_VERSIONS) return `it keeps ${kept} versions (${silo.oldest} to ${silo.version}), more than any Silo store keeps (${MAX_HISTORY_VERSIONS})`;
      return fieldsProblem(silo, {});
    },

    version({ entry, text }, plan) {
      if (!ETAG.test(entry.etag)) return `etag ${JSON.stringify(entry.etag)} is not one Silo makes (base64url)`;
      const badTime = timeProblem('updated_at', entry.updated_at);
      if (badTime) return badTime;
      const limit = planNamed(plans, plan).maxDataBytes;
      const bytes = Buffer.byteLength(text, 'utf8');
      if (bytes > limit) return `file_data is ${bytes} bytes, over the ${limit}-byte limit of plan ${JSON.stringify(plan)}`;
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch {
        return 'file_data is not valid JSON';
      }
      if (deeperThan(data, maxDataDepth)) return `file_data nests deeper than ${maxDataDepth} levels`;
      return fieldsProblem(entry, data);
    },
  };
}

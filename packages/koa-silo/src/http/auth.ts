/**
 * Contract §3 and the rate limit in front of it: who is calling (manage key, access key, or an
 * anonymous address), which plan applies, and one request counted against that client.
 *
 * Order: a request with a key is authenticated first (the plan is the key's account's), then
 * counted under the key (by its identity: type, account and name, unique among live keys; so
 * nothing is hashed beyond authentication's own hash), unless the plan is unlimited. A request whose key is refused is counted under its address
 * before the 401, so guessing keys is rate limited too. Anonymous public reads count by address
 * under the default plan.
 */
import type { Context } from 'koa';
import { type AuditActor, DEFAULT_PLAN_NAME, KEY_HEADER, type KeyType, type Plan, planNamed, type Principal, UnauthorizedError } from '../model/index.js';
import type { AccountService } from '../service/types.js';
import { clientAddress, clientLimitKey } from './client.js';
import type { RateLimit } from './rate-limit.js';
import type { ConsoleService } from '../console/service.js';
import { checkOrigin, sessionHolder, sessionToken } from './session-cookie.js';


export interface Caller extends Principal {
  plan: Plan;
  /** Who acts, for the audit log: the key's type and name, or the console user. */
  actor: AuditActor;
  /** The client's address (as the rate limits see it), for the audit log. */
  address: string;
  /**
   * Authenticates the key again if it was checked more than a moment ago, so that a write whose
   * body took long to arrive commits nothing once its key was revoked (contract §3: revocation
   * takes effect within 1 s). Writes call it after reading the body, right before the service.
   */
  confirm(): Promise<void>;
}

/** Whether the caller's key reaches silo `uuid` (a scoped access key reaches only its silos, contract §15). */
export function reaches(caller: Principal, uuid: string): boolean {
  return caller.silos === undefined || caller.silos.includes(uuid.toLowerCase());
}

/** What awaiting a count that counted nothing resolves to. */
const COUNTED: Promise<void> = Promise.resolve();

/** How old an authentication may be before a write checks the key again. */
const RECHECK_AFTER_MS = 250;

export interface Auth {
  /** Authenticate the key of `type` and count the request; throws 401 or 429. */
  require(ctx: Context, type: KeyType): Promise<Caller>;
  /** Count an anonymous request by address under the default plan; throws 429. */
  anonymous(ctx: Context): Promise<void>;
  /** Count a request of a signed-in console user (the console's own API), as its session's key would be; throws 429. */
  countSession(ctx: Context, who: { account: string; user: string }): Promise<void>;
}

/** Who a principal is in the audit log: a console user, or a key by its type and name. */
function actorOf({ user, keyType, keyName }: Principal & { user?: string }): AuditActor {
  return user !== undefined ? { type: 'console', name: user } : { type: keyType, name: keyName };
}

/**
 * The bucket of a caller's own limits (requests, event streams): a key's, by its type and name,
 * or a console user's. Account names have no ':', and a session's bucket has a prefix of its own:
 * a key may be named `console:admin`, and it does not spend the console user admin's budget.
 */
export function callerLimitKey({ account, keyType, keyName, actor }: Pick<Caller, 'account' | 'keyType' | 'keyName' | 'actor'>): string {
  return actor.type === 'console' ? `session:${keyType}:${account}:${actor.name}` : `key:${keyType}:${account}:${keyName}`;
}

export function createAuth(deps: {
  accounts: AccountService;
  plans: Record<string, Plan>;
  rateLimit: RateLimit;
  trustProxy: boolean;
  /** Console sessions, when the console is served: a request without a key may carry one. */
  sessions?: ConsoleService;
}): Auth {
  const { accounts, plans, rateLimit, trustProxy, sessions } = deps;

  // Where the default plan does not limit, an anonymous request names no bucket and counts nothing.
  const anonymousLimited = planNamed(plans, DEFAULT_PLAN_NAME).rateLimitPerMinute > 0;
  const anonymous = (ctx: Context) =>
    anonymousLimited ? rateLimit.consume(ctx, `ip:${clientLimitKey(ctx, trustProxy)}`, DEFAULT_PLAN_NAME) : COUNTED;

  /** The caller behind a console session: it may do what the account's keys may (contract §13). */
  async function sessionCaller(ctx: Context, token: string, type: KeyType): Promise<Principal & { user: string }> {
    const who = await sessionHolder(sessions!, token);
    checkOrigin(ctx, trustProxy);
    return { account: who.account, keyType: type, keyName: `console:${who.user}`, user: who.user };
  }

  /**
   * Counts a request of `account` in its caller's bucket (`bucket`: made only where the plan limits
   * callers) and in the account's own limit; the plan it counted by. Where the plan limits neither,
   * nothing is counted and nothing more is awaited: the common case of a self-hosted server.
   */
  async function count(ctx: Context, account: string, bucket: () => string): Promise<Plan> {
    const planName = await accounts.planOf(account);
    const plan = planNamed(plans, planName);
    const perCaller = plan.rateLimitPerMinute > 0;
    // The account's limit holds also where the per-caller one is off (0).
    const perAccount = (plan.accountRateLimitPerMinute ?? 0) > 0;
    if (perCaller && perAccount) {
      // Both counters at once: a counter store that hangs costs one counter's time limit, not two.
      await Promise.all([rateLimit.consume(ctx, bucket(), planName), rateLimit.consumeAccount(account, planName)]);
    } else if (perCaller) {
      await rateLimit.consume(ctx, bucket(), planName);
    } else if (perAccount) {
      await rateLimit.consumeAccount(account, planName);
    }
    return plan;
  }

  return {
    anonymous,
    async countSession(ctx, { account, user }) {
      await count(ctx, account, () => callerLimitKey({ account, keyType: 'manage', keyName: `console:${user}`, actor: { type: 'console', name: user } }));
    },
    async require(ctx, type) {
      const value = ctx.get(KEY_HEADER[type]);
      const token = value === '' && sessions ? sessionToken(ctx) : undefined;
      let principal: Principal & { user?: string };
      try {
        if (token === undefined && value === '') {
          const what = type === 'manage' ? 'a manage key' : 'an access key';
          throw new UnauthorizedError(`Not authenticated: send ${what} in the ${KEY_HEADER[type]} header`);
        }
        principal = token !== undefined ? await sessionCaller(ctx, token, type) : await accounts.authenticate(value, type);
      } catch (err) {
        if (err instanceof UnauthorizedError) await anonymous(ctx);
        throw err;
      }
      const { account, keyType, keyName, silos } = principal;
      const actor = actorOf(principal);
      const plan = await count(ctx, account, () => callerLimitKey({ account, keyType, keyName, actor }));
      // An answer for one key or session: never kept by a shared cache (a proxy or CDN in front
      // of Silo would give it to the next client, keyed or not). `no-store` answers keep theirs.
      if (!ctx.response.get('Cache-Control')) ctx.set('Cache-Control', 'private');
      const checkedAt = Date.now();
      const confirm = async () => {
        if (Date.now() - checkedAt < RECHECK_AFTER_MS) return;
        if (token === undefined) await accounts.authenticate(value, type);
        else await sessionHolder(sessions!, token);
      };
      const caller: Caller = { account, keyType, keyName, plan, confirm, actor, address: clientAddress(ctx, trustProxy) };
      if (silos !== undefined) caller.silos = silos;
      return caller;
    },
  };
}

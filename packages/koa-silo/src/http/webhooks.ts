/**
 * Contract §12's management routes: create a webhook (its secret shown in this answer only), list,
 * delete (200 `{id, deleted: true}`, as a silo's delete answers), and list its recent deliveries. Manage key; auth → body → validation → service.
 */
import type { Context } from 'koa';
import { NotFoundError, ValidationError } from '../model/index.js';
import { createWebhookBody, type CreateWebhookBody } from '../schemas/webhook.js';
import { validator } from '../schemas/validate.js';
import type { WebhookService } from '../webhooks/service.js';
import type { Auth } from './auth.js';
import { readJson } from './body.js';
import { sendJson } from './respond.js';

export interface WebhookDeps {
  auth: Auth;
  webhooks: WebhookService;
  maxJsonDepth: number;
}

/** A webhook's create body is small: its URL, events and at most 100 uuids. */
const BODY_BYTES = 16 * 1024;

const checkCreate = validator<CreateWebhookBody>(createWebhookBody);

export function webhookHandlers({ auth, webhooks, maxJsonDepth }: WebhookDeps) {
  /** The body as the schema wants it; its 422 lists a URL refused as written too, not only the schema's problems. */
  function checked(value: unknown): CreateWebhookBody {
    const issues = checkCreate.issues(value, 'body');
    if (issues.length === 0) return value as CreateWebhookBody;
    const url = value !== null && typeof value === 'object' ? (value as { url?: unknown }).url : undefined;
    const urlIssue = typeof url === 'string' && !issues.some((issue) => issue.loc[1] === 'url') ? webhooks.urlIssue(url) : undefined;
    throw new ValidationError(urlIssue ? [...issues, urlIssue] : issues);
  }

  return {
    async create(ctx: Context): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      const body = await readJson(ctx, { bodyBytes: BODY_BYTES, planBytes: BODY_BYTES }, maxJsonDepth);
      const input = checked(body.value);
      await caller.confirm();
      const created = await webhooks.create(caller.account, {
        url: input.url,
        events: [...input.events],
        ...(input.silos ? { silos: [...input.silos] } : {}),
      }, caller);
      ctx.set('Location', `/api/v1/manage/webhooks/${created.id}`);
      sendJson(ctx, 201, created);
    },

    async list(ctx: Context): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      sendJson(ctx, 200, { webhooks: await webhooks.list(caller.account) });
    },

    /** GET .../webhooks/{id}: where create's Location points. */
    async get(ctx: Context, id: string): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      sendJson(ctx, 200, await webhooks.get(caller.account, webhookId(id)));
    },

    async remove(ctx: Context, id: string): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      await caller.confirm();
      const hook = webhookId(id);
      await webhooks.remove(caller.account, hook, caller);
      // As a silo's delete answers (the hosted interface's rule for deletes): 200 with what went.
      sendJson(ctx, 200, { id: hook, deleted: true });
    },

    /** POST .../webhooks/{id}/retry: the deliveries waiting for a retry are attempted now. */
    async retry(ctx: Context, id: string): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      await caller.confirm();
      const hook = webhookId(id);
      sendJson(ctx, 200, { id: hook, rescheduled: await webhooks.retryNow(caller.account, hook) });
    },

    async deliveries(ctx: Context, id: string): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      sendJson(ctx, 200, { deliveries: await webhooks.deliveries(caller.account, webhookId(id)) });
    },
  };
}

/** The path's webhook id; one that is not even valid percent-encoding names no webhook (404, not a 500). */
function webhookId(param: string): string {
  try {
    return decodeURIComponent(param);
  } catch {
    throw new NotFoundError('No webhook with this id');
  }
}

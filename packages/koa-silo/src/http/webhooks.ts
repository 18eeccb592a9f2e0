/**
 * Contract §12's management routes: create a webhook (its secret shown in this answer only), list,
 * delete, and list its recent deliveries. Manage key; auth → body → validation → service.
 */
import type { Context } from 'koa';
import { createWebhookBody, type CreateWebhookBody } from '../schemas/webhook.js';
import { validator } from '../schemas/validate.js';
import type { WebhookService } from '../webhooks/service.js';
import type { Auth } from './auth.js';
import { readJson } from './body.js';
import { sendEmpty, sendJson } from './respond.js';

export interface WebhookDeps {
  auth: Auth;
  webhooks: WebhookService;
  maxJsonDepth: number;
}

/** A webhook's create body is small: its URL, events and at most 100 uuids. */
const BODY_BYTES = 16 * 1024;

const checkCreate = validator<CreateWebhookBody>(createWebhookBody);

export function webhookHandlers({ auth, webhooks, maxJsonDepth }: WebhookDeps) {
  return {
    async create(ctx: Context): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      const body = await readJson(ctx, { bodyBytes: BODY_BYTES, planBytes: BODY_BYTES }, maxJsonDepth);
      const input = checkCreate(body.value, 'body');
      await caller.confirm();
      const created = await webhooks.create(caller.account, {
        url: input.url,
        events: [...input.events],
        ...(input.silos ? { silos: [...input.silos] } : {}),
      });
      ctx.set('Location', `/api/v1/manage/webhooks/${created.id}`);
      sendJson(ctx, 201, created);
    },

    async list(ctx: Context): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      sendJson(ctx, 200, { webhooks: await webhooks.list(caller.account) });
    },

    async remove(ctx: Context, id: string): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      await caller.confirm();
      await webhooks.remove(caller.account, decodeURIComponent(id));
      sendEmpty(ctx, 204);
    },

    async deliveries(ctx: Context, id: string): Promise<void> {
      const caller = await auth.require(ctx, 'manage');
      sendJson(ctx, 200, { deliveries: await webhooks.deliveries(caller.account, decodeURIComponent(id)) });
    },
  };
}

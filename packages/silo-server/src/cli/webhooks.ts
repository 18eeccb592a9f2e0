/**
 * `silo webhooks list|create|delete`: an account's webhooks over the same storage as the server,
 * with the API's rules (public addresses only unless SILO_WEBHOOK_ALLOW_PRIVATE, the account's own
 * silos). Deliveries are the running server's work: a webhook made here is served by it at once.
 */
import { WEBHOOK_EVENTS, type WebhookEventType, type WebhookInfo } from 'koa-silo/model';
import { existingAccount } from './accounts.js';
import { confirmed, list, parseCommand, required } from './args.js';
import { statusOf, UsageError } from './errors.js';
import { help } from './help.js';
import type { Io } from './io.js';
import { withSilo } from './open-silo.js';
import { table } from './table.js';

function isEvent(text: string): text is WebhookEventType {
  return (WEBHOOK_EVENTS as readonly string[]).includes(text);
}

/** What a webhook's state reads as in the list. */
export function webhookState(hook: Pick<WebhookInfo, 'disabled' | 'failing_since'>): string {
  if (hook.disabled) return 'disabled (failed for 5 days)';
  if (hook.failing_since) return `failing since ${hook.failing_since}`;
  return 'active';
}

export async function webhooksList(args: string[], io: Io): Promise<number> {
  const cmd = 'webhooks list';
  const { values } = parseCommand(cmd, args);
  if (values.help) return help(cmd, io);
  const account = String(values.account);
  const hooks = await withSilo(cmd, values, io, async (silo) => {
    await existingAccount(silo.accounts, account, false);
    return silo.webhooks.list(account);
  }, { writes: false });
  if (values.json) io.stdout(`${JSON.stringify(hooks)}\n`);
  else if (hooks.length === 0) io.stdout(`Account ${JSON.stringify(account)} has no webhooks.\n`);
  else {
    io.stdout(
      table([
        ['ID', 'URL', 'EVENTS', 'SILOS', 'STATE', 'CREATED'],
        ...hooks.map((h) => [h.id, h.url, h.events.join(','), h.silos ? h.silos.join(',') : 'all', webhookState(h), h.created_at]),
      ]),
    );
  }
  return 0;
}

export async function webhooksCreate(args: string[], io: Io): Promise<number> {
  const cmd = 'webhooks create';
  const { values } = parseCommand(cmd, args);
  if (values.help) return help(cmd, io);
  const url = required(cmd, values, 'url', 'where deliveries are POSTed');
  const events = list(values.events);
  const unknown = events.find((e) => !isEvent(e));
  if (events.length === 0 || unknown !== undefined) {
    throw new UsageError(`silo ${cmd}: --events must list some of ${WEBHOOK_EVENTS.join(', ')}${unknown !== undefined ? `, got ${JSON.stringify(unknown)}` : ''}`);
  }
  const silos = values.silos === undefined ? undefined : list(values.silos);
  const account = String(values.account);
  const created = await withSilo(cmd, values, io, async (silo) => {
    await existingAccount(silo.accounts, account, true);
    try {
      return await silo.webhooks.create(account, { url, events: events as WebhookEventType[], ...(silos ? { silos } : {}) });
    } catch (error) {
      // The API's 422 in the command's words: which option, not which body member.
      if (statusOf(error) !== 422) throw error;
      const words = (error as Error).message.replace(/\bbody\.url: /g, '--url: ').replace(/\bbody\.silos\.(\d+): /g, (_, i: string) => `--silos item ${Number(i) + 1}: `).replace(/\bbody: /g, '');
      throw new UsageError(`silo ${cmd}: ${words}`);
    }
  }, { writes: true });
  if (values.json) {
    io.stdout(`${JSON.stringify(created)}\n`);
  } else {
    io.stdout(
      `Created webhook ${created.id} for account ${JSON.stringify(account)}: ${created.events.join(', ')} of ${created.silos ? `silos ${created.silos.join(', ')}` : 'every silo'} to ${created.url}.\n` +
        `Signing secret (shown once, never again: store it now):\n${created.secret}\n` +
        'A running server delivers to it from now on (deliveries signed as Standard Webhooks says).\n',
    );
  }
  return 0;
}

export async function webhooksDelete(args: string[], io: Io): Promise<number> {
  const cmd = 'webhooks delete';
  const { values, positionals } = parseCommand(cmd, args);
  if (values.help) return help(cmd, io);
  const id = positionals[0]!;
  confirmed(cmd, values, id, 'the webhook id', 'deleted');
  const account = String(values.account);
  await withSilo(cmd, values, io, async (silo) => {
    await existingAccount(silo.accounts, account, false);
    await silo.webhooks.remove(account, id);
  }, { writes: true });
  if (values.json) io.stdout(`${JSON.stringify({ id, deleted: true })}\n`);
  else io.stdout(`Deleted webhook ${id} of account ${JSON.stringify(account)}; its pending deliveries are dropped.\n`);
  return 0;
}

/**
 * The verbs that administer accounts from the command line: `accounts` (create, set-limit,
 * reset-password, delete), `keys` (create, list, revoke) and `webhooks` (the signing secret). Each opens
 * the store serve uses, says so when it had to create it, and finds the account by its e-mail; cli.ts
 * only dispatches to them.
 */
import { AccountError, AccountService } from './accounts/accounts.js';
import { ActivityLog } from './accounts/activity.js';
import { KeyService } from './accounts/keys.js';
import { PasswordResets, RESET_TOKEN_TTL_MS, resetLink } from './accounts/password-reset.js';
import { escapeUnshowable, escapeUnshowableJson } from './accounts/user-text.js';
import { UsageError } from './cli-errors.js';
import { need, parseVerb, service, text, verbOf } from './cli-verb-flags.js';
import type { Config } from './config.js';
import { deleteJobsWithAccount } from './jobs/account-deletion.js';
import { rotationDetail, WebhookSecrets } from './jobs/webhook-secrets.js';
import { windowUnit } from './ratelimit/window.js';
import { loadServerKey } from './secrets/server-key.js';
import { describeStore, openStore, storeExists } from './store/open-store.js';
import type { ApiKeyRecord, Store } from './store/store.js';

/** An open store and the words that name it (for "no account for …"). */
interface OpenedStore {
  store: Store;
  label: string;
}

async function withStore<T>(config: Config, fn: (store: OpenedStore) => Promise<T>): Promise<T> {
  // A store the command itself had to create is almost always the wrong folder: the label says so.
  const existed = storeExists(config);
  const store = await openStore(config);
  const label = `${describeStore(config)}${existed ? '' : ', created just now: is that the PAGEWORKS_DATA_DIR serve uses?'}`;
  try {
    return await fn({ store, label });
  } finally {
    await store.close();
  }
}

async function accountByEmail({ store, label }: OpenedStore, email: string) {
  const account = await new AccountService(store).findByEmail(email);
  if (!account) throw new AccountError(`no account for ${escapeUnshowable(email)} in ${label}`);
  return account;
}

/** `pageworks accounts <create|set-limit|reset-password|delete>`: returns the exit code. */
export async function accountsCommand(args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  const values = parseVerb(verbOf('accounts', sub), rest);
  const email = need(values.email, 'email');
  return withStore(config, async (opened) => {
    const { store } = opened;
    const accounts = new AccountService(store, { passwordHashCost: config.passwordHashCost });
    if (sub === 'create') {
      const account = await accounts.create(email, text(values.password));
      console.log(`created account ${account.email} (${account.id})`);
      return 0;
    }
    if (sub === 'set-limit') {
      const svc = service(values.service);
      const raw = need(values.limit, 'limit');
      if (raw !== 'default' && !/^\d+$/.test(raw)) throw new UsageError('--limit must be a whole number or "default"');
      const account = await accountByEmail(opened, email);
      await accounts.setLimit(account.id, svc, raw === 'default' ? null : Number(raw));
      const per = windowUnit(config.rateLimitWindowS);
      await new ActivityLog(store, config.activityRetentionDays).record(account.id, 'limit_changed', 'cli', {
        detail: `${svc}: ${raw === 'default' ? 'default' : `${raw} per ${per}`}`,
      });
      console.log(
        `${account.email}: ${svc} limit ${raw === 'default' ? 'reset to the default' : `set to ${raw} requests per ${per}`}`,
      );
      return 0;
    }
    if (sub === 'reset-password') {
      const account = await accountByEmail(opened, email);
      const token = await new PasswordResets(store, accounts).issue(account.id);
      await new ActivityLog(store, config.activityRetentionDays).record(account.id, 'password_reset_requested', 'cli', {
        detail: 'link printed by the CLI',
      });
      // The link alone on stdout (like `keys create`), so a script can pass it on.
      process.stdout.write(`${resetLink(config.dashboardPublicUrl, token)}\n`);
      console.error(
        `one-time link for ${account.email}, valid ${RESET_TOKEN_TTL_MS / 60_000} minutes; using it ends every session of the account`,
      );
      return 0;
    }
    if (sub === 'delete') {
      const account = await accountByEmail(opened, email);
      const tombstone = new ActivityLog(store, config.activityRetentionDays).entry(account.id, 'account_deleted', 'cli');
      // The account's job PDFs go too, wherever RESULT_STORE keeps them. Imported here, as the verbs
      // below are: the S3 client it may open costs every other command's start.
      const { openResultStore } = await import('./jobs/results/open-result-store.js');
      const results = openResultStore(config);
      try {
        deleteJobsWithAccount(accounts, { store, results });
        await accounts.delete(account.id, tombstone);
      } finally {
        await results.close();
      }
      console.log(
        `deleted account ${account.email} (${account.id}): its keys are refused from now on, its sessions ended, its usage removed`,
      );
      return 0;
    }
    throw new UsageError(`unknown command "accounts ${sub ?? ''}"`);
  });
}

const rfc3339 = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** A key as `keys list --json` prints it: the API's shape (snake_case, RFC 3339 times), never the key itself. */
function keyJson(k: ApiKeyRecord) {
  return {
    id: k.id,
    service: k.service,
    display_prefix: k.displayPrefix,
    name: k.name,
    created_at: rfc3339(k.createdAt),
    last_used_at: rfc3339(k.lastUsedAt),
    revoked_at: rfc3339(k.revokedAt),
  };
}

/** `pageworks keys <create|list|revoke>`: returns the exit code. */
export async function keysCommand(args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  const values = parseVerb(verbOf('keys', sub), rest);
  return withStore(config, async (opened) => {
    const { store } = opened;
    const keys = new KeyService(store);
    if (sub === 'create') {
      const svc = service(values.service);
      const account = await accountByEmail(opened, need(values.email, 'email'));
      const { key, record } = await keys.create(account.id, svc, text(values.name));
      await new ActivityLog(store, config.activityRetentionDays).record(account.id, 'key_created', 'cli', {
        detail: `${record.displayPrefix}… (${svc})`,
      });
      process.stdout.write(`${key}\n`);
      return 0;
    }
    if (sub === 'list') {
      const account = await accountByEmail(opened, need(values.email, 'email'));
      const list = await keys.list(account.id);
      // Names are the user's text: a control or bidi character in one (stored before such names were
      // refused) is printed as an escape, never sent to the operator's terminal.
      if (values.json) {
        console.log(escapeUnshowableJson(JSON.stringify(list.map(keyJson), null, 2)));
      } else if (list.length === 0) {
        console.log(`${escapeUnshowable(account.email)} has no keys`);
      } else {
        for (const k of list) {
          const used = k.lastUsedAt ? new Date(k.lastUsedAt).toISOString() : 'never';
          const state = k.revokedAt ? `revoked ${new Date(k.revokedAt).toISOString()}` : 'active';
          console.log(
            `${k.displayPrefix}…  ${k.service.padEnd(8)}  ${state.padEnd(32)}  created ${new Date(k.createdAt).toISOString()}  last used ${used}  ${escapeUnshowable(k.name ?? '')}`,
          );
        }
      }
      return 0;
    }
    if (sub === 'revoke') {
      const target = need(values.key, 'key').replace(/…$/, '');
      let found = await keys.findActive(target);
      // A 4-hex display prefix can be shared by keys of several accounts; the account tells them apart.
      if (typeof values.email === 'string') {
        const account = await accountByEmail(opened, values.email);
        found = found.filter((k) => k.accountId === account.id);
      }
      const key = found[0];
      if (key === undefined)
        throw new AccountError(`no active key matches ${target}${values.email ? ` for ${values.email}` : ''}`);
      if (found.length > 1) {
        const accounts = new Set(found.map((k) => k.accountId)).size;
        throw new AccountError(
          accounts > 1 && values.email === undefined
            ? `${target} matches active keys of ${accounts} accounts; add --email to choose the account`
            : `${target} matches ${found.length} active keys of this account; revoke it in the dashboard, where each key is listed`,
        );
      }
      await keys.revoke(key.id);
      await new ActivityLog(store, config.activityRetentionDays).record(key.accountId, 'key_revoked', 'cli', {
        detail: `${key.displayPrefix}… (${key.service})`,
      });
      console.log(`revoked ${key.displayPrefix}… (${key.service})`);
      return 0;
    }
    throw new UsageError(`unknown command "keys ${sub ?? ''}"`);
  });
}

/** `pageworks webhooks secret [--rotate]`: returns the exit code. */
export async function webhooksCommand(args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  const values = parseVerb(verbOf('webhooks', sub), rest);
  const email = need(values.email, 'email');
  return withStore(config, async (opened) => {
    const { store } = opened;
    const account = await accountByEmail(opened, email);
    // The secrets are sealed with the server's key: the data directory's key file, or SECRETS_KEY at scale.
    const secrets = new WebhookSecrets(store, loadServerKey(config)?.box);
    const activity = new ActivityLog(store, config.activityRetentionDays);
    if (!values.rotate) {
      const secret = await secrets.get(account.id);
      await activity.record(account.id, 'webhook_secret_revealed', 'cli', { detail: 'printed by the CLI' });
      // The secret alone on stdout (like `keys create`), so a script can store it.
      process.stdout.write(`${secret}\n`);
      return 0;
    }
    const rotation = await secrets.rotate(account.id);
    await activity.record(account.id, 'webhook_secret_rotated', 'cli', { detail: rotationDetail(rotation) });
    process.stdout.write(`${rotation.secret}\n`);
    console.error(
      `rotated the webhook secret of ${account.email}: deliveries are signed with this one from now on` +
        (rotation.previousUntil === null
          ? ''
          : `, and with the old one too until ${new Date(rotation.previousUntil).toISOString()} (24 h), so receivers can switch meanwhile`),
    );
    return 0;
  });
}

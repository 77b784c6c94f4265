#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { AccountError, AccountService } from './accounts/accounts.js';
import { ActivityLog } from './accounts/activity.js';
import { KeyService } from './accounts/keys.js';
import { PasswordResets, RESET_TOKEN_TTL_MS, resetLink } from './accounts/password-reset.js';
import { escapeUnshowable, escapeUnshowableJson } from './accounts/user-text.js';
import { reportCliError, UsageError } from './cli-errors.js';
import { type ApiService, type Config, loadConfig, parseServices } from './config.js';
import { openResultStore } from './jobs/results/result-store.js';
import { WebhookSecrets } from './jobs/webhook-secrets.js';
import { serve } from './main.js';
import { windowUnit } from './ratelimit/window.js';
import { openStore } from './store/open-store.js';
import type { Store } from './store/store.js';
import { VERSION } from './version.js';

const USAGE = `pageworks ${VERSION}: HTML-to-PDF and URL-metadata API

Usage:
  pageworks serve [--services render,metadata,dashboard | render-worker]
  pageworks accounts create --email E [--password P]
  pageworks accounts set-limit --email E --service render|metadata --limit N   (requests per minute, or per RATE_LIMIT_WINDOW_S; "default" clears)
  pageworks keys create --email E --service render|metadata [--name N]        (prints the full key alone on stdout)
  pageworks keys list --email E [--json]
  pageworks keys revoke --key FULL_KEY_OR_DISPLAY_PREFIX [--email E]         (--email narrows a prefix several accounts share)
  pageworks accounts reset-password --email E                                (prints a one-time reset link, valid 30 minutes)
  pageworks accounts delete --email E                                        (keys refused at once, sessions ended, data removed)
  pageworks backup --to FILE                                                 (a consistent copy of the SQLite store, while serve runs)
  pageworks webhooks secret --email E [--rotate]                              (prints the webhook signing secret alone on stdout)
  pageworks render IN.html [-o OUT.pdf] [--strict] [--format A4 --landscape --print-background --scale S --margin M --width W --height H]
  pageworks fetch URL [--json]

Configuration comes from environment variables (see README.md).`;

function need(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`missing --${flag}`);
  return value;
}

function service(value: string | undefined): ApiService {
  if (value !== 'render' && value !== 'metadata') throw new UsageError('--service must be render or metadata');
  return value;
}

async function withStore<T>(config: Config, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(config);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

async function accountByEmail(store: Store, email: string) {
  const account = await new AccountService(store).findByEmail(email);
  if (!account) throw new AccountError(`no account for ${escapeUnshowable(email)}`);
  return account;
}

async function accountsCommand(args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: { email: { type: 'string' }, password: { type: 'string' }, service: { type: 'string' }, limit: { type: 'string' } },
  });
  const email = need(values.email, 'email');
  return withStore(config, async (store) => {
    const accounts = new AccountService(store);
    if (sub === 'create') {
      const account = await accounts.create(email, values.password);
      console.log(`created account ${account.email} (${account.id})`);
      return 0;
    }
    if (sub === 'set-limit') {
      const svc = service(values.service);
      const raw = need(values.limit, 'limit');
      if (raw !== 'default' && !/^\d+$/.test(raw)) throw new UsageError('--limit must be a whole number or "default"');
      const account = await accountByEmail(store, email);
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
      const account = await accountByEmail(store, email);
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
      const account = await accountByEmail(store, email);
      const tombstone = new ActivityLog(store, config.activityRetentionDays).entry(account.id, 'account_deleted', 'cli');
      // The account's job PDFs go too, wherever RESULT_STORE keeps them.
      const results = openResultStore(config);
      try {
        await new AccountService(store, Date.now, results).delete(account.id, tombstone);
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

async function keysCommand(args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      service: { type: 'string' },
      name: { type: 'string' },
      key: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  return withStore(config, async (store) => {
    const keys = new KeyService(store);
    if (sub === 'create') {
      const svc = service(values.service);
      const account = await accountByEmail(store, need(values.email, 'email'));
      const { key, record } = await keys.create(account.id, svc, values.name);
      await new ActivityLog(store, config.activityRetentionDays).record(account.id, 'key_created', 'cli', {
        detail: `${record.displayPrefix}… (${svc})`,
      });
      process.stdout.write(`${key}\n`);
      return 0;
    }
    if (sub === 'list') {
      const account = await accountByEmail(store, need(values.email, 'email'));
      const list = await keys.list(account.id);
      // Names are the user's text: a control or bidi character in one (stored before such names were
      // refused) is printed as an escape, never sent to the operator's terminal.
      if (values.json) {
        console.log(escapeUnshowableJson(JSON.stringify(list, null, 2)));
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
      if (values.email !== undefined) {
        const account = await accountByEmail(store, values.email);
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

async function webhooksCommand(args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'secret') throw new UsageError(`unknown command "webhooks ${sub ?? ''}"`);
  const { values } = parseArgs({
    args: rest,
    options: { email: { type: 'string' }, rotate: { type: 'boolean', default: false } },
  });
  const email = need(values.email, 'email');
  return withStore(config, async (store) => {
    const account = await accountByEmail(store, email);
    const secrets = new WebhookSecrets(store);
    const secret = values.rotate ? await secrets.rotate(account.id) : await secrets.get(account.id);
    // The secret alone on stdout (like `keys create`), so a script can store it.
    process.stdout.write(`${secret}\n`);
    if (values.rotate)
      console.error(`rotated the webhook secret of ${account.email}: deliveries are signed with this one from now on`);
    return 0;
  });
}

/** Runs one CLI invocation and returns its exit code. */
export async function runCli(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE);
    return 0;
  }
  if (command === '--version' || command === '-v') {
    console.log(VERSION);
    return 0;
  }
  try {
    if (command === undefined) throw new UsageError('missing command (see pageworks --help)');
    const config = loadConfig();
    switch (command) {
      case 'serve': {
        const { values } = parseArgs({ args: rest, options: { services: { type: 'string' } } });
        const services = values.services ? parseServices(values.services, '--services') : config.services;
        await serve({ ...config, services });
        return 0;
      }
      case 'accounts':
        return await accountsCommand(rest, config);
      case 'keys':
        return await keysCommand(rest, config);
      case 'backup': {
        const { values } = parseArgs({ args: rest, options: { to: { type: 'string' } } });
        const to = need(values.to, 'to');
        const bytes = (await import('./store/backup.js')).backupSqliteStore(config, to);
        console.log(`wrote ${to} (${bytes} bytes)`);
        return 0;
      }
      case 'webhooks':
        return await webhooksCommand(rest, config);
      case 'render':
        return await (await import('./render/cli.js')).runRenderCli(rest, config);
      case 'fetch':
        return await (await import('./metadata/cli.js')).runFetchCli(rest, config);
      default:
        throw new UsageError(`unknown command "${command}" (see pageworks --help)`);
    }
  } catch (err) {
    return reportCliError('pageworks', err);
  }
}

const exitCode = await runCli(process.argv.slice(2));
// `serve` returns only after shutdown; other commands end here.
process.exitCode = exitCode;

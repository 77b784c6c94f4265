import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A real SMTP server on 127.0.0.1 (no TLS, no auth) that keeps every message it receives, parsed. */
export class MailCatcher {
  readonly mails: ParsedMail[] = [];
  /** When the connection that brought each mail was opened, as performance.now() of this process. */
  private readonly connectedAt = new Map<ParsedMail, number>();
  private readonly sessionOpenedAt = new Map<string, number>();
  private waiters: Array<() => void> = [];
  private readonly server: SMTPServer;

  private constructor() {
    this.server = new SMTPServer({
      // Loopback only, so no STARTTLS (nodemailer would otherwise upgrade to the server's self-signed certificate).
      disabledCommands: ['STARTTLS', 'AUTH'],
      authOptional: true,
      logger: false,
      onConnect: (session, callback) => {
        this.sessionOpenedAt.set(session.id, performance.now());
        callback();
      },
      onClose: (session) => this.sessionOpenedAt.delete(session.id),
      onData: (stream, session, callback) => {
        const openedAt = this.sessionOpenedAt.get(session.id) ?? performance.now();
        simpleParser(stream)
          .then((mail) => {
            this.mails.push(mail);
            this.connectedAt.set(mail, openedAt);
            for (const wake of this.waiters.splice(0)) wake();
            callback();
          })
          .catch(callback);
      },
    });
  }

  /** Starts a catcher on a free loopback port. */
  static async start(): Promise<MailCatcher> {
    const catcher = new MailCatcher();
    await new Promise<void>((resolve) => catcher.server.listen(0, '127.0.0.1', resolve));
    return catcher;
  }

  /** SMTP_URL of this server. */
  get url(): string {
    return `smtp://127.0.0.1:${(this.server.server.address() as AddressInfo).port}`;
  }

  /** Mails received for this address. */
  to(address: string): ParsedMail[] {
    return this.mails.filter((m) =>
      (Array.isArray(m.to) ? m.to : [m.to]).some((t) => t?.value.some((v) => v.address === address)),
    );
  }

  /** When the sender opened the connection that brought the mail, on this process's performance.now() clock. */
  sentFrom(mail: ParsedMail): number {
    const at = this.connectedAt.get(mail);
    if (at === undefined) throw new Error('not a mail this catcher received');
    return at;
  }

  /** Waits until `count` mails for the address have arrived (or fails after `timeoutMs`). */
  async waitFor(address: string, count = 1, timeoutMs = 15_000): Promise<ParsedMail[]> {
    const until = Date.now() + timeoutMs;
    while (this.to(address).length < count) {
      if (Date.now() > until) throw new Error(`no mail for ${address} after ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 200);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.to(address);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The reset link in a mail's text. */
export function resetLinkIn(mail: ParsedMail): string {
  const match = /https?:\/\/\S+\/reset-password\?token=[A-Za-z0-9_-]+/.exec(mail.text ?? '');
  if (!match) throw new Error(`no reset link in:\n${mail.text}`);
  return match[0];
}

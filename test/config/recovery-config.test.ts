import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/config-env.js';

describe('configuration of mail, links and the activity log', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toMatchObject({
      smtpUrl: undefined,
      mailFrom: 'Pageworks <no-reply@localhost>',
      dashboardPublicUrl: 'http://127.0.0.1:3000',
      activityRetentionDays: 90,
    });
    expect(loadConfig({ PAGEWORKS_HOST: '0.0.0.0', DASHBOARD_PORT: '8080' }).dashboardPublicUrl).toBe('http://127.0.0.1:8080');
  });

  it('reads every variable', () => {
    expect(
      loadConfig({
        SMTP_URL: 'smtps://mailer:secret@mail.example.com:465',
        MAIL_FROM: 'ops@example.com',
        DASHBOARD_PUBLIC_URL: 'https://dash.example.com/',
        ACTIVITY_RETENTION_DAYS: '30',
      }),
    ).toMatchObject({
      smtpUrl: 'smtps://mailer:secret@mail.example.com:465',
      mailFrom: 'ops@example.com',
      dashboardPublicUrl: 'https://dash.example.com',
      activityRetentionDays: 30,
    });
  });

  it.each([
    ['SMTP_URL', 'http://mail.example.com'],
    ['SMTP_URL', 'not a url'],
    ['MAIL_FROM', 'Pageworks <no-reply@localhost>\r\nBcc: victim@example.com'],
    ['MAIL_FROM', 'nobody'],
    ['DASHBOARD_PUBLIC_URL', 'ftp://dash.example.com'],
    ['ACTIVITY_RETENTION_DAYS', '0'],
    ['ACTIVITY_RETENTION_DAYS', 'ninety'],
  ])('refuses %s=%j with an error naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^${name}: `));
  });
});

/**
 * The record of the largest assembly a job may ask for still fits a render record (32 KiB of JSON) with
 * room for its warnings: 5,000 long-titled parts, 10 stamps of 1 MiB, every metadata value at its limit
 * and a 5,000-file split, written by the render log to a real SQLite store and read back. The render page
 * then says what the record left out; a stored row whose finishing has another shape shows what is sound.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFinishing, recordPartFinishing } from '../../src/assemble/assembly-record.js';
import { MAX_METADATA_TEXT, MAX_STAMP_HTML, MAX_STAMPS, MAX_TITLE } from '../../src/assemble/schema.js';
import { renderPage } from '../../src/dashboard/views/renders-view.js';
import { RenderLog } from '../../src/render/log/render-log.js';
import type { RenderRecord, ReportEntry } from '../../src/report/report.js';
import { reportJson, storedReport } from '../../src/report/stored-report.js';
import type { ServiceLog } from '../../src/service-log.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';

const quiet: ServiceLog = { error: () => {}, warn: () => {}, info: () => {} };
let dir: string;
let store: Store;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-assembly-record-'));
  store = await openSqliteStore(dir);
  await store.createAccount({ id: 'acc_big', email: 'big@example.com', passwordHash: null, createdAt: 0 });
});
afterAll(async () => {
  await store?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const viewer = { email: 'big@example.com', csrfToken: 'x' };
const pageText = (body: string) => body.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ');

describe("an assembly's record", () => {
  it('fits the largest assembly in 32 KiB with its warnings, and the page says what it left out', async () => {
    const long = (c: string, n: number) => c.repeat(n);
    const stampHtml = `<html><head><style>p{}</style></head><body><p>${long('Page {{page}} ', MAX_STAMP_HTML / 16)}</p></body></html>`;
    expect(stampHtml.length).toBeLessThanOrEqual(MAX_STAMP_HTML);
    const request = {
      parts: [{ html: '<p>x</p>' }],
      stamps: Array.from({ length: MAX_STAMPS }, () => ({ html: stampHtml, pages: `1-${long('9', 3)},!2` })),
      metadata: Object.fromEntries(
        ['title', 'author', 'subject', 'keywords'].map((f) => [f, long('M', MAX_METADATA_TEXT)]),
      ) as Record<string, string>,
      split: { every: 1 },
    };
    const files = Array.from({ length: 5000 }, (_, i) => `${long('n', 40)}-${i + 1}.pdf`);
    const finishing = recordFinishing(request, 5000, files);
    const parts = Array.from({ length: 5000 }, (_, i) => ({
      label: `parts[${i}]`,
      kind: 'html' as const,
      pages: 1,
      warnings: 0,
      ...recordPartFinishing(long('T', MAX_TITLE), { pages: '1', rotate: 90 }),
    }));
    const warnings: ReportEntry[] = Array.from({ length: 100 }, (_, i) => ({
      kind: 'resource_failed',
      url: `https://cdn.example.com/${i}.png`,
      status: 404,
      message: `${i}.png answered 404 Not Found`,
    }));
    const record: RenderRecord = {
      id: 'rnd_000000000000000000000001',
      accountId: 'acc_big',
      keyId: null,
      createdAt: Date.now(),
      durationMs: 1000,
      source: 'api',
      jobId: null,
      status: 'succeeded',
      error: null,
      pages: 5000,
      bytes: 1_000_000,
      warnings,
      claims: [],
      assembly: { partCount: 5000, parts, ...finishing },
    };
    const renderLog = new RenderLog({ store, retentionDays: 7, log: quiet, flushMs: 3_600_000 });
    renderLog.record(record);
    await renderLog.close();

    const reader = new RenderLog({ store, retentionDays: 7, log: quiet, flushMs: 3_600_000 });
    const kept = await reader.find(record.id, 'acc_big');
    await reader.close();
    if (!kept?.assembly) throw new Error('the record or its assembly was not kept');
    const json = reportJson(kept.warnings, kept.claims, kept.assembly);
    expect(Buffer.byteLength(json)).toBeLessThanOrEqual(32 * 1024);
    // Half the record is the entries': most of the 100 warnings are kept.
    expect(kept.warnings.filter((w) => w.kind === 'resource_failed').length).toBeGreaterThan(50);
    const { stamps, metadata, split } = kept.assembly;
    expect(stamps).toHaveLength(MAX_STAMPS);
    expect(stamps?.[0].stamped).toBe(998);
    expect(stamps?.[0].text?.length).toBe(120);
    expect(stamps?.[0].text?.endsWith('…')).toBe(true);
    expect(metadata?.map((m) => m.value.length)).toEqual([300, 300, 300, 300]);
    expect(split?.files).toBe(5000);
    expect(split?.names[0]).toBe(files[0]);
    expect(kept.assembly.parts.length).toBeGreaterThan(10);
    expect(kept.assembly.parts[0].outlineTitle?.length).toBe(300);

    const body = pageText(renderPage({ viewer, record: kept, keyLabel: 'k', now: Date.now() }));
    const names = split?.names.length ?? 0;
    expect(body).toContain('5,000 parts, in order');
    expect(body).toContain(`The record keeps the first ${kept.assembly.parts.length.toLocaleString('en-US')};`);
    expect(body).toContain(
      `The record keeps the first ${names.toLocaleString('en-US')} names; ${(5000 - names).toLocaleString('en-US')} more files are in the zip.`,
    );
    expect(body).toContain('Split into 5,000 files');
  });

  it('shows what is sound of a stored finishing whose shape is another', () => {
    const stored = JSON.stringify({
      entries: [],
      claims: [],
      assembly: {
        partCount: 1,
        parts: [{ label: 'parts[0]', kind: 'html', pages: 1, warnings: 0, outlineTitle: 7 }],
        stamps: [
          { layer: 'sideways', stamped: 1, source: '<p>bad layer</p>' },
          { layer: 'under', stamped: 2, source: '<p>DRAFT</p>', text: 'DRAFT' },
        ],
        metadata: [
          { field: 'password', value: 'hunter2' },
          { field: 'author', value: 'Ada' },
        ],
        split: { by: 'pieces', files: 2, names: ['a.pdf'] },
      },
    });
    const { assembly } = storedReport(stored);
    expect(assembly?.parts).toEqual([]);
    expect(assembly?.stamps).toEqual([{ layer: 'under', stamped: 2, source: '<p>DRAFT</p>', text: 'DRAFT' }]);
    expect(assembly?.metadata).toEqual([{ field: 'author', value: 'Ada' }]);
    expect(assembly?.split).toBeUndefined();
  });
});

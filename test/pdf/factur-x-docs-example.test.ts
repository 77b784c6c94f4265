/**
 * docs/standards.md's complete EN 16931 invoice, as written there: its XML passes the published
 * Schematron (FACTURX_SCHEMATRON; says so in one line when it is not set), and its HTML, rendered
 * through POST /v1/render with the XML served where its `href` points, is claimed as Factur-X EN 16931
 * with no warning, the XML embedded byte for byte.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDoc } from '../docs/markdown.js';
import { postRender } from '../helpers/render.js';
import { type DeclarationsApp, startDeclarationsApp, startFileServer } from './declarations-app.js';
import { failedRules, SAXON_JAR, schematronMissing } from './factur-x-rules/schematron-runner.js';

const HEADING = '### A complete EN 16931 invoice';
const HREF = 'https://erp.example.com/invoices/PW-2026-0142.xml';

/** The first fenced block of `language` in the section under HEADING. */
function block(language: string): string {
  const text = readDoc('docs/standards.md');
  const start = text.indexOf(`\n${HEADING}\n`);
  expect(start, HEADING).toBeGreaterThanOrEqual(0);
  const section = text.slice(start, text.indexOf('\n## ', start + 1));
  const found = new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'm').exec(section)?.[1];
  if (found === undefined) throw new Error(`no ${language} block under ${HEADING}`);
  return found;
}

const HTML = block('html');
const XML = Buffer.from(block('xml'));
const missing = await schematronMissing();
if (missing) console.log(`[factur-x docs example] the Schematron check is skipped: ${missing}`);

let ctx: DeclarationsApp;
let files: Awaited<ReturnType<typeof startFileServer>>;
beforeAll(async () => {
  [ctx, files] = await Promise.all([
    startDeclarationsApp({ allowLoopback: true }),
    startFileServer({ '/PW-2026-0142.xml': { type: 'application/xml', body: XML } }),
  ]);
});
afterAll(async () => {
  await Promise.all([ctx?.close(), files?.close()]);
});

describe("docs/standards.md's complete EN 16931 invoice", () => {
  it.skipIf(missing !== null)(
    'its XML breaks no rule of the published Schematron',
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-docs-fx-'));
      try {
        fs.writeFileSync(path.join(dir, 'factur-x.xml'), XML);
        const xsl = process.env.FACTURX_SCHEMATRON as string;
        const args = [
          '-cp',
          SAXON_JAR,
          'net.sf.saxon.Transform',
          `-s:${dir}/factur-x.xml`,
          `-o:${dir}/report.svrl`,
          `-xsl:${xsl}`,
        ];
        await promisify(execFile)('java', args);
        const svrl = fs.readFileSync(path.join(dir, 'report.svrl'), 'utf8');
        expect(svrl).toContain('<svrl:fired-rule');
        expect(failedRules(svrl)).toEqual([]);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );

  it('renders to a PDF that claims Factur-X EN 16931, with no warning and the XML byte for byte', async () => {
    expect(HTML).toContain(HREF);
    const res = await postRender(ctx.app, ctx.key, { html: HTML.replace(HREF, `${files.base}/PW-2026-0142.xml`) });
    expect(res.statusCode).toBe(200);
    expect(ctx.recordOf(res.headers['x-render-id']).warnings).toEqual([]);
    const pdf = res.rawPayload;
    const text = pdf.toString('latin1');
    expect(text).toContain('urn:factur-x:pdfa:CrossIndustryDocument');
    expect(text).toMatch(/fx:ConformanceLevel>EN 16931<|fx:ConformanceLevel="EN 16931"/);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-docs-fx-'));
    try {
      fs.writeFileSync(path.join(dir, 'invoice.pdf'), pdf);
      execFileSync('pdfdetach', ['-savefile', 'factur-x.xml', '-o', path.join(dir, 'out.xml'), path.join(dir, 'invoice.pdf')]);
      expect(fs.readFileSync(path.join(dir, 'out.xml')).equals(XML)).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

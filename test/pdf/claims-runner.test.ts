/**
 * The claims runner catches what it is for: a claimed profile veraPDF fails, a claim nobody declared, and a
 * render that did not answer 200. The render here is a stand-in answering hand-made PDFs, so what veraPDF
 * says of them is known; the differential test drives the real service.
 */
import { describe, expect, it } from 'vitest';
import { type ClaimsDocument, runClaims } from './claims/claims-runner.js';
import { VERAPDF, VERAPDF_SKIPPED } from './verapdf.js';

/** A one-page PDF whose XMP claims PDF/A-2b (`claim`) or nothing; it has no trailer ID, which PDF/A requires (6.1.3-1). */
function tinyPdf(claim: boolean): Buffer {
  const xmp =
    '<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
    '<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/"><pdfaid:part>2</pdfaid:part><pdfaid:conformance>B</pdfaid:conformance></rdf:Description>' +
    '</rdf:RDF></x:xmpmeta><?xpacket end="w"?>';
  const objects = [
    `<< /Type /Catalog /Pages 2 0 R${claim ? ' /Metadata 4 0 R' : ''} >>`,
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>',
    ...(claim ? [`<< /Type /Metadata /Subtype /XML /Length ${xmp.length} >>\nstream\n${xmp}\nendstream`] : []),
  ];
  let body = '%PDF-1.7\n';
  const offsets = objects.map((object, i) => {
    const offset = body.length;
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
    return offset;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

const DOCUMENT: ClaimsDocument = {
  name: 'tiny',
  constructs: ['stand-in'],
  html: (profiles) => `<meta name="pdf-profile" content="${profiles}">`,
};

describe('the claims runner', () => {
  it('reports a claim veraPDF fails, a claim not declared, and a render that failed; checks every claim', async () => {
    if (!VERAPDF) {
      console.log(VERAPDF_SKIPPED);
      return;
    }
    const summary = await runClaims([DOCUMENT], {
      async render(html) {
        if (html.includes('"PDF/A-2b"')) return { status: 200, body: tinyPdf(true) };
        if (html.includes('"PDF/UA-1"')) return { status: 200, body: tinyPdf(true) };
        if (html.includes('"PDF/A-2u"')) return { status: 503, body: Buffer.from('{"error":"busy"}') };
        return { status: 200, body: tinyPdf(false) };
      },
      concurrency: 2,
      batchSize: 10,
      check: true,
    });
    expect(summary.renders).toBe(5);
    expect(summary.claims).toEqual({ 'PDF/A-2b': 2 });
    expect(summary.checked).toEqual({ 'PDF/A-2b': 1 });
    expect(summary.failedRenders).toEqual([{ document: 'tiny', declaration: 'PDF/A-2u', status: 503, body: '{"error":"busy"}' }]);
    const falseClaims = Object.fromEntries(summary.falseClaims.map((f) => [f.declaration, f]));
    expect(Object.keys(falseClaims).sort()).toEqual(['PDF/A-2b', 'PDF/UA-1']);
    expect(falseClaims['PDF/A-2b']?.profile).toBe('PDF/A-2b');
    expect(falseClaims['PDF/A-2b']?.rules).toContain('6.1.3-1');
    expect(falseClaims['PDF/UA-1']).toMatchObject({ profile: 'PDF/A-2b', rules: ['undeclared'], constructs: ['stand-in'] });
    expect(summary.jvms).toBe(1);
  });
});

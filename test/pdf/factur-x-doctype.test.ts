/**
 * An invoice XML is never taken with a DOCTYPE in it, wherever it sits and however the file is encoded
 * (a receiver that loads DTDs would fetch the one it names), and Pageworks' own parser never loads one.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { checkInvoice } from '../../src/pdf/factur-x/check-invoice.js';
import { readInvoice } from '../../src/pdf/factur-x/xsd-validator.js';

const invoice = readFileSync(new URL('../fixtures/factur-x/en16931-invoice.xml', import.meta.url), 'utf8');
const doctype = '<!DOCTYPE rsm:CrossIndustryInvoice SYSTEM "http://127.0.0.1:9/invoice.dtd">';

/** The invoice with a DOCTYPE after its XML declaration and `pad` bytes of comment before it. */
function withDoctype(pad: number, encoding?: string): string {
  const body = invoice.replace(/^<\?xml[^>]*\?>\s*/, '');
  const decl = `<?xml version="1.0" encoding="${encoding ?? 'UTF-8'}"?>\n`;
  return `${decl}<!--${'x'.repeat(pad)}-->\n${doctype}\n${body}`;
}

function utf32(text: string, bigEndian: boolean): Uint8Array {
  const points = [...text].map((c) => c.codePointAt(0) as number);
  const out = Buffer.alloc(points.length * 4);
  points.forEach((p, i) => {
    if (bigEndian) out.writeUInt32BE(p, i * 4);
    else out.writeUInt32LE(p, i * 4);
  });
  return out;
}

const utf16le = (text: string) => new Uint8Array(Buffer.from(text, 'utf16le'));
const utf16be = (text: string) => new Uint8Array(Buffer.from(text, 'utf16le').swap16());

describe('an invoice XML with a DOCTYPE', () => {
  it('is taken as it is without one (the same invoice in UTF-8 and in UTF-16)', async () => {
    expect(await checkInvoice(new TextEncoder().encode(invoice), 'EN 16931')).toBeNull();
    const sixteen = `\ufeff${invoice.replace('encoding="UTF-8"', 'encoding="UTF-16"')}`;
    expect(await checkInvoice(utf16le(sixteen), 'EN 16931')).toBeNull();
  });

  const cases: Array<[string, Uint8Array]> = [
    ['after the first 4 KiB, in UTF-8', new TextEncoder().encode(withDoctype(5000))],
    ['in UTF-16LE with a BOM', utf16le(`\ufeff${withDoctype(10, 'UTF-16')}`)],
    ['in UTF-16LE without a BOM', utf16le(withDoctype(10, 'UTF-16'))],
    ['in UTF-16BE without a BOM, after 4 KiB', utf16be(withDoctype(5000, 'UTF-16'))],
    ['in UTF-32LE', utf32(withDoctype(10, 'UTF-32'), false)],
    ['in UTF-32BE with a BOM', utf32(`\ufeff${withDoctype(10, 'UTF-32')}`, true)],
    ['in lower case inside a comment', new TextEncoder().encode(invoice.replace('?>', '?><!-- <!doctype x> -->'))],
  ];
  for (const [name, xml] of cases) {
    it(`is refused ${name}`, async () => {
      expect(await checkInvoice(xml, 'EN 16931')).toEqual({
        clause: 'XML',
        message: 'it declares a DOCTYPE, which an invoice has no use for (Pageworks does not read one)',
      });
    });
  }

  it('is refused in an encoding whose ASCII is not ASCII bytes (UTF-7, EBCDIC)', async () => {
    const utf7 = new TextEncoder().encode('<?xml version="1.0" encoding="UTF-7"?>+ADw-!DOCTYPE x+AD4-<x/>');
    expect(await checkInvoice(utf7, 'EN 16931')).toMatchObject({ clause: 'XML', message: expect.stringMatching(/UTF-7/) });
    const ebcdic = new Uint8Array([0x4c, 0x6f, 0xa7, 0x94, 0x93, 0x40]);
    expect(await checkInvoice(ebcdic, 'EN 16931')).toMatchObject({ clause: 'XML', message: expect.stringMatching(/EBCDIC/) });
  });

  it('never makes Pageworks load the DTD it names, nor an external entity', async () => {
    let requests = 0;
    const server = http.createServer((_req, res) => {
      requests += 1;
      res.end('<!ENTITY e "pwned">');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const xml = `<?xml version="1.0"?><!DOCTYPE x SYSTEM "${url}/a.dtd" [<!ENTITY f SYSTEM "${url}/f.txt">]><x>&e;&f;</x>`;
      // The parser itself, past the DOCTYPE check: it answers without asking the network.
      await readInvoice(new TextEncoder().encode(xml), 'EN 16931');
      await readInvoice(utf16le(`\ufeff${xml}`), 'EN 16931');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(requests).toBe(0);
    } finally {
      server.close();
    }
  });
});
